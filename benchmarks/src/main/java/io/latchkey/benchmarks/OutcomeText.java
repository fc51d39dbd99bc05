package io.latchkey.benchmarks;

import static io.latchkey.benchmarks.OutcomeValues.calls;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import io.latchkey.measure.TextTable;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** What the report says of a run's outcome in words: its exclusion check, its watchdog's holds, its commands. */
final class OutcomeText {

    private OutcomeText() {
    }

    static boolean violated(RunOutcome o) {
        return o.text(Keys.VIOLATION).filter(v -> v.contains("MUTUAL EXCLUSION")).isPresent()
                || (o.message != null && o.message.contains("MUTUAL EXCLUSION"));
    }

    static String exclusion(RunOutcome outcome) {
        if (outcome == null) {
            return "—";
        }
        if (outcome.status == RunOutcome.Status.SKIPPED) {
            return "skipped";
        }
        if (outcome.text(Keys.VIOLATION).isPresent() || outcome.status == RunOutcome.Status.FAILED) {
            return violated(outcome) ? "VIOLATED" : "not verified";
        }
        OptionalDouble verified = outcome.metric(Keys.VERIFIED);
        return verified.isPresent() ? "ok, " + TextTable.count(verified.getAsDouble()) + " checked" : "—";
    }

    static String shortExclusion(RunOutcome outcome) {
        String full = exclusion(outcome);
        return full.startsWith("ok") ? "ok" : full;
    }

    static String held(RunOutcome outcome) {
        if (outcome == null || outcome.status == RunOutcome.Status.SKIPPED) {
            return "—";
        }
        OptionalDouble held = outcome.metric("watchdog.still.held");
        OptionalDouble locks = outcome.metric("watchdog.locks");
        if (held.isEmpty() || locks.isEmpty()) {
            return "FAILED";
        }
        return held.getAsDouble() == locks.getAsDouble() ? "all held" : "LOST " + TextTable.count(locks.getAsDouble() - held.getAsDouble());
    }

    static String commands(RunOutcome outcome) {
        if (outcome == null || outcome.status == RunOutcome.Status.SKIPPED) {
            return "—";
        }
        Map<String, Long> calls = calls(outcome);
        if (calls.isEmpty()) {
            return "none";
        }
        StringBuilder text = new StringBuilder();
        calls.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .limit(3)
                .forEach(e -> text.append(text.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
                        .append(TextTable.count(e.getValue())));
        return text.toString();
    }

    /** The most frequent commands per acquisition, such as {@code evalsha 2.00 del 1.00}. */
    static String commandsPer(RunOutcome outcome) {
        if (outcome == null || outcome.status == RunOutcome.Status.SKIPPED) {
            return "—";
        }
        OptionalDouble all = outcome.metric(Keys.ALL_ACQUISITIONS);
        if (all.isEmpty() || all.getAsDouble() <= 0) {
            return "—";
        }
        StringBuilder text = new StringBuilder();
        calls(outcome).entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .limit(6)
                .forEach(e -> text.append(text.length() == 0 ? "" : ", ").append(e.getKey())
                        .append(String.format(Locale.ROOT, " %.2f", e.getValue() / all.getAsDouble())));
        return text.toString();
    }
}
