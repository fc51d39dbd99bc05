package io.latchkey.benchmarks;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

/** A value of a run that the report shows: merged over its forks, and its estimate across them. */
final class Measure {

    /** JMH's score: this JVM's acquisitions (or hand-offs) a second. */
    static final Measure SCORE = new Measure(o -> o.score, f -> OptionalDouble.of(f.score), true);
    /** A two-JVM scenario's throughput: this JVM's score plus the second JVM's rate. */
    static final Measure BOTH_JVMS = new Measure(OutcomeValues::bothJvms,
            f -> OutcomeValues.bothJvms(OptionalDouble.of(f.score), f.metrics), true);
    /** A two-JVM scenario's wait p99 that its target judges: the worse of the two JVMs', fork by fork. */
    static final Measure WORSE_JVM_P99 = new Measure(
            o -> worse(o.metric(Keys.WAIT_P99), o.metric(Keys.SECOND_JVM_WAIT_P99)),
            f -> worse(f.metric(Keys.WAIT_P99), f.metric(Keys.SECOND_JVM_WAIT_P99)), false);

    final Function<RunOutcome, OptionalDouble> merged;
    final Function<RunOutcome.Fork, OptionalDouble> perFork;
    final boolean scoreBased;

    private Measure(Function<RunOutcome, OptionalDouble> merged, Function<RunOutcome.Fork, OptionalDouble> perFork,
                    boolean scoreBased) {
        this.merged = merged;
        this.perFork = perFork;
        this.scoreBased = scoreBased;
    }

    /** @return one of the side metrics a run reports */
    static Measure metric(String key) {
        return new Measure(o -> o.metric(key), f -> f.metric(key), false);
    }

    /** @return the throughput that a scenario's target judges */
    static Measure throughput(Scenario scenario) {
        return twoJvms(scenario) ? BOTH_JVMS : SCORE;
    }

    /** @return the wait p99 that a scenario's p99 target and the summary judge: for two JVMs, the worse one's */
    static Measure waitP99(Scenario scenario) {
        return twoJvms(scenario) ? WORSE_JVM_P99 : metric(Keys.WAIT_P99);
    }

    static boolean twoJvms(Scenario scenario) {
        return TwoJvmBenchmark.class.isAssignableFrom(scenario.benchmarkClass);
    }

    Optional<Estimate> estimate(RunOutcome outcome) {
        return outcome == null ? Optional.empty() : outcome.estimate(perFork, scoreBased);
    }

    private static OptionalDouble worse(OptionalDouble one, OptionalDouble other) {
        if (one.isEmpty() || other.isEmpty()) {
            return one.isEmpty() ? other : one;
        }
        return OptionalDouble.of(Math.max(one.getAsDouble(), other.getAsDouble()));
    }
}
