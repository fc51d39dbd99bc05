package io.latchkey.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class RunOutcomeTest {

    private static final Scenario HOT = Scenario.all().stream().filter(s -> s.id.equals("hot-8")).findFirst()
            .orElseThrow();

    private static RunOutcome.Fork fork(double score, long acquisitions, long p99, long run) {
        Properties metrics = new Properties();
        metrics.setProperty(Keys.ACQUISITIONS, Long.toString(acquisitions));
        metrics.setProperty(Keys.COMMAND_PREFIX + "evalsha", Long.toString(acquisitions * 3));
        metrics.setProperty(Keys.WAIT_P99, Long.toString(p99));
        metrics.setProperty(Keys.LONGEST_RUN, Long.toString(run));
        return new RunOutcome.Fork(score, new double[] {score - 10, score + 10}, metrics);
    }

    @Test
    void mergesForksCountsAddedPercentilesAsMedianMaximaAsLargest() {
        RunOutcome outcome = RunOutcome.ok(HOT, Library.LATCHKEY,
                List.of(fork(100, 1_000, 5, 7), fork(110, 1_100, 9, 2), fork(120, 1_200, 6, 4)), 30);

        assertEquals(110, outcome.score.getAsDouble(), 1e-9);
        assertEquals(3_300, outcome.metric(Keys.ACQUISITIONS).getAsDouble());
        assertEquals(9_900, outcome.metric(Keys.COMMAND_PREFIX + "evalsha").getAsDouble());
        assertEquals(6, outcome.metric(Keys.WAIT_P99).getAsDouble());
        assertEquals(7, outcome.metric(Keys.LONGEST_RUN).getAsDouble());
        assertEquals(3.0, OutcomeValues.scriptCalls(outcome).getAsDouble() / 3_300, 1e-9);
    }

    @Test
    void estimatesAcrossForksOrAcrossTheIterationsOfASingleFork() {
        RunOutcome three = RunOutcome.ok(HOT, Library.LATCHKEY,
                List.of(fork(100, 1, 5, 0), fork(110, 1, 9, 0), fork(120, 1, 6, 0)), 30);
        RunOutcome one = RunOutcome.ok(HOT, Library.LATCHKEY, List.of(fork(100, 1, 5, 0)), 10);

        Estimate acrossForks = three.estimate(f -> OptionalDouble.of(f.score), true).orElseThrow();
        Estimate acrossIterations = one.estimate(f -> OptionalDouble.of(f.score + 1), true).orElseThrow();
        Estimate notScoreBased = one.estimate(f -> f.metric(Keys.WAIT_P99), false).orElseThrow();

        assertEquals(3, acrossForks.samples);
        assertEquals(110, acrossForks.mean, 1e-9);
        assertEquals(2, acrossIterations.samples);
        assertEquals(101, acrossIterations.mean, 1e-9);
        assertEquals(1, notScoreBased.samples);
    }
}
