package io.latchkey.benchmarks;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/** The numbers the report reads from a run's outcome: rates, amounts per acquisition, command counts. */
final class OutcomeValues {

    private static final Set<String> SUBSCRIPTION_COMMANDS =
            Set.of("subscribe", "unsubscribe", "ssubscribe", "sunsubscribe", "psubscribe", "punsubscribe");

    private OutcomeValues() {
    }

    static OptionalDouble valueOf(RunOutcome outcome, Function<RunOutcome, OptionalDouble> value) {
        if (outcome == null || outcome.status == RunOutcome.Status.SKIPPED) {
            return OptionalDouble.empty();
        }
        return value.apply(outcome);
    }

    static OptionalDouble bothJvms(RunOutcome o) {
        return bothJvms(o.score, o.metrics);
    }

    /** @return this JVM's JMH score plus the second JVM's rate over the same measured windows */
    static OptionalDouble bothJvms(OptionalDouble score, Properties metrics) {
        OptionalDouble local = number(metrics, Keys.ACQUISITIONS);
        OptionalDouble all = number(metrics, Keys.ALL_ACQUISITIONS);
        OptionalDouble seconds = number(metrics, Keys.SECONDS);
        if (score.isEmpty() || local.isEmpty() || all.isEmpty() || seconds.isEmpty() || seconds.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(score.getAsDouble() + (all.getAsDouble() - local.getAsDouble()) / seconds.getAsDouble());
    }

    static OptionalDouble number(Properties metrics, String key) {
        return RunOutcome.number(metrics.getProperty(key));
    }

    static OptionalDouble perAcquisition(RunOutcome o, OptionalDouble amount) {
        OptionalDouble all = o.metric(Keys.ALL_ACQUISITIONS);
        if (amount.isEmpty() || all.isEmpty() || all.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(amount.getAsDouble() / all.getAsDouble());
    }

    static OptionalDouble per(RunOutcome o, String amount, String count) {
        OptionalDouble a = o.metric(amount);
        OptionalDouble n = o.metric(count);
        if (a.isEmpty() || n.isEmpty() || n.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(a.getAsDouble() / n.getAsDouble());
    }

    static OptionalDouble perMinute(RunOutcome o, OptionalDouble amount) {
        OptionalDouble seconds = o.metric(Keys.SECONDS);
        if (amount.isEmpty() || seconds.isEmpty() || seconds.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(amount.getAsDouble() * 60 / seconds.getAsDouble());
    }

    /** @return the scripts run (EVAL, EVALSHA and their read-only and function kin): the round trips that carry them */
    static OptionalDouble scriptCalls(RunOutcome o) {
        return countOf(o, command -> command.startsWith("eval") || command.startsWith("fcall"));
    }

    /** @return the channel subscriptions made and dropped: (S|P)SUBSCRIBE and (S|P)UNSUBSCRIBE calls */
    static OptionalDouble subscriptionChanges(RunOutcome o) {
        return countOf(o, command -> SUBSCRIPTION_COMMANDS.contains(command));
    }

    static OptionalDouble countOf(RunOutcome o, Predicate<String> command) {
        long count = calls(o).entrySet().stream().filter(e -> command.test(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        return o.metrics.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(count);
    }

    static OptionalDouble scaled(OptionalDouble value, double factor) {
        return value.isPresent() ? OptionalDouble.of(value.getAsDouble() * factor) : value;
    }

    static Map<String, Long> calls(RunOutcome outcome) {
        Map<String, Long> calls = new TreeMap<>();
        outcome.metrics.stringPropertyNames().stream()
                .filter(key -> key.startsWith(Keys.COMMAND_PREFIX))
                .forEach(key -> calls.put(key.substring(Keys.COMMAND_PREFIX.length()),
                        Long.parseLong(outcome.metrics.getProperty(key))));
        return calls;
    }
}
