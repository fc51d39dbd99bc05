package io.latchkey.benchmarks;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import io.latchkey.measure.TextTable;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * The suite's closing report: one table per scenario (Latchkey, Redisson, Latchkey / Redisson),
 * then a summary with the targets, then the notes. Built from the {@link RunOutcome}s.
 */
final class SuiteReport {

    private final Map<Scenario, Map<Library, RunOutcome>> outcomes = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();

    void add(RunOutcome outcome) {
        outcomes.computeIfAbsent(outcome.scenario, s -> new EnumMap<>(Library.class)).put(outcome.library, outcome);
    }

    void note(String note) {
        notes.add(note);
    }

    /**
     * @return whether the suite fails: a Latchkey run failed in any way, or either library broke
     *     mutual exclusion. A Redisson run that fails otherwise (an error, a stalled queue) is the
     *     comparator's finding, reported in its table, and does not fail the suite.
     */
    boolean failed() {
        return outcomes.values().stream().flatMap(m -> m.values().stream())
                .anyMatch(o -> o.status == RunOutcome.Status.FAILED
                        && (o.library == Library.LATCHKEY || violated(o)));
    }

    private static boolean violated(RunOutcome o) {
        return o.text(Keys.VIOLATION).filter(v -> v.contains("MUTUAL EXCLUSION")).isPresent()
                || (o.message != null && o.message.contains("MUTUAL EXCLUSION"));
    }

    String render(String environment) {
        StringBuilder out = new StringBuilder();
        out.append("\n==== Latchkey vs Redisson: results ====\n").append(environment).append('\n');
        outcomes.forEach((scenario, byLibrary) -> {
            out.append('\n').append(scenario.id).append(" — ").append(scenario.title).append('\n');
            TextTable table = scenario.shape == Scenario.Shape.WATCHDOG
                    ? watchdogTable(byLibrary) : throughputTable(scenario, byLibrary);
            out.append(table.render(2));
            for (RunOutcome outcome : byLibrary.values()) {
                if (outcome.status == RunOutcome.Status.SKIPPED || calls(outcome).isEmpty()) {
                    continue;
                }
                if (scenario.shape == Scenario.Shape.THROUGHPUT) {
                    out.append("  Redis commands per ").append(scenario.unit, 0, scenario.unit.length() - 1)
                            .append(", ").append(outcome.library.title).append(": ")
                            .append(commandsPer(outcome)).append('\n');
                } else {
                    out.append("  Redis commands during the hold, ").append(outcome.library.title).append(": ")
                            .append(commands(outcome)).append('\n');
                }
            }
            for (RunOutcome outcome : byLibrary.values()) {
                if (outcome.status != RunOutcome.Status.OK) {
                    out.append("  ").append(outcome.library.title).append(' ')
                            .append(outcome.status == RunOutcome.Status.FAILED ? "FAILED: " : "skipped: ")
                            .append(outcome.message).append('\n');
                }
            }
        });
        out.append("\n==== Summary (ratio = Latchkey / Redisson; higher throughput and lower wait are better) ====\n");
        out.append(summaryTable().render(2));
        if (!notes.isEmpty()) {
            out.append("\nNotes:\n");
            notes.forEach(note -> out.append("  - ").append(note).append('\n'));
        }
        return out.toString();
    }

    // ---- per scenario ------------------------------------------------------------------------

    private TextTable throughputTable(Scenario scenario, Map<Library, RunOutcome> byLibrary) {
        TextTable table = new TextTable("", "Latchkey", "Redisson", "Latchkey/Redisson", "target");
        String one = scenario.unit.substring(0, scenario.unit.length() - 1);
        boolean twoJvms = scenario.benchmarkClass == TwoJvmBenchmark.class;
        if (twoJvms) {
            row(table, byLibrary, "acquisitions/s, both JVMs", SuiteReport::bothJvms, TextTable::count,
                    target(scenario, byLibrary, SuiteReport::bothJvms));
            row(table, byLibrary, "acquisitions/s, this JVM (JMH)", o -> o.score, TextTable::count, "");
        } else {
            row(table, byLibrary, scenario.unit + "/s (JMH)", o -> o.score, TextTable::count,
                    target(scenario, byLibrary, o -> o.score));
        }
        row(table, byLibrary, "  ± (99.9 % CI)", o -> o.scoreError, TextTable::count, "");
        String wait = scenario.unit.equals("handoffs") ? "handoff" : "wait";
        row(table, byLibrary, wait + " p50", o -> o.metric(Keys.WAIT_P50), TextTable::millis, "");
        row(table, byLibrary, wait + " p99", o -> o.metric(Keys.WAIT_P99), TextTable::millis,
                scenario.p99Target.isPresent() ? atMost(scenario.p99Target.getAsDouble(), byLibrary) : "");
        row(table, byLibrary, wait + " p99.9", o -> o.metric(Keys.WAIT_P999), TextTable::millis, "");
        row(table, byLibrary, "client CPU / " + one, o -> per(o, Keys.CLIENT_CPU_NANOS, Keys.ACQUISITIONS),
                SuiteReport::micros, "");
        row(table, byLibrary, "Redis commands / " + one + " (incl. in scripts)",
                o -> per(o, Keys.REDIS_COMMANDS, Keys.ALL_ACQUISITIONS), v -> String.format(Locale.ROOT, "%.2f", v), "");
        row(table, byLibrary, "Redis CPU / " + one, o -> per(o, Keys.REDIS_CPU_NANOS, Keys.ALL_ACQUISITIONS),
                SuiteReport::micros, "");
        table.row("mutual exclusion", exclusion(byLibrary.get(Library.LATCHKEY)), exclusion(byLibrary.get(Library.REDISSON)));
        return table;
    }

    private TextTable watchdogTable(Map<Library, RunOutcome> byLibrary) {
        TextTable table = new TextTable("", "Latchkey", "Redisson", "Latchkey/Redisson", "");
        row(table, byLibrary, "locks held", o -> o.metric("watchdog.locks"), TextTable::count, null);
        row(table, byLibrary, "hold (s)", o -> scaled(o.metric("watchdog.hold.millis"), 1e-3), SuiteReport::decimal, null);
        row(table, byLibrary, "lease (s), renewed every third", o -> scaled(o.metric("watchdog.lease.millis"), 1e-3),
                SuiteReport::decimal, null);
        row(table, byLibrary, "renewal round trips (EVAL*) / min", o -> perMinute(o, SuiteReport::scriptCalls),
                TextTable::count, "");
        row(table, byLibrary, "Redis commands incl. in scripts / min", o -> perMinute(o, o.metric(Keys.REDIS_COMMANDS)),
                TextTable::count, "");
        row(table, byLibrary, "client CPU / min (ms)", o -> scaled(perMinute(o, o.metric(Keys.CLIENT_CPU_NANOS)), 1e-6),
                SuiteReport::decimal, "");
        row(table, byLibrary, "Redis CPU / min (ms)", o -> scaled(perMinute(o, o.metric(Keys.REDIS_CPU_NANOS)), 1e-6),
                SuiteReport::decimal, "");
        row(table, byLibrary, "still held after the hold", o -> o.metric("watchdog.still.held"), TextTable::count, null);
        row(table, byLibrary, "time to take them all (ms)", o -> scaled(o.metric("watchdog.acquire.nanos"), 1e-6),
                TextTable::count, "");
        row(table, byLibrary, "time to release them all (ms)", o -> scaled(o.metric("watchdog.release.nanos"), 1e-6),
                TextTable::count, "");
        return table;
    }

    /** Adds a row; {@code target} null means no ratio column, empty means a ratio and no target. */
    private static void row(TextTable table, Map<Library, RunOutcome> byLibrary, String label,
            Function<RunOutcome, OptionalDouble> value, DoubleFunction<String> format, String target) {
        OptionalDouble latchkey = valueOf(byLibrary.get(Library.LATCHKEY), value);
        OptionalDouble redisson = valueOf(byLibrary.get(Library.REDISSON), value);
        String ratio = target == null ? "" : ratio(latchkey, redisson);
        table.row(label, cell(byLibrary.get(Library.LATCHKEY), latchkey, format),
                cell(byLibrary.get(Library.REDISSON), redisson, format), ratio, target == null ? "" : target);
    }

    private static String target(Scenario scenario, Map<Library, RunOutcome> byLibrary,
            Function<RunOutcome, OptionalDouble> value) {
        if (scenario.target.isEmpty()) {
            return "";
        }
        double goal = scenario.target.getAsDouble();
        OptionalDouble latchkey = valueOf(byLibrary.get(Library.LATCHKEY), value);
        OptionalDouble redisson = valueOf(byLibrary.get(Library.REDISSON), value);
        String verdict = "";
        if (latchkey.isPresent() && redisson.isPresent() && redisson.getAsDouble() > 0) {
            verdict = latchkey.getAsDouble() / redisson.getAsDouble() >= goal ? " met" : " MISSED";
        }
        return String.format(Locale.ROOT, "≥ %.1f%s", goal, verdict);
    }

    /** The wait target: Latchkey's p99 at most this fraction of Redisson's. */
    private static String atMost(double goal, Map<Library, RunOutcome> byLibrary) {
        OptionalDouble latchkey = valueOf(byLibrary.get(Library.LATCHKEY), o -> o.metric(Keys.WAIT_P99));
        OptionalDouble redisson = valueOf(byLibrary.get(Library.REDISSON), o -> o.metric(Keys.WAIT_P99));
        String verdict = "";
        if (latchkey.isPresent() && redisson.isPresent() && redisson.getAsDouble() > 0) {
            verdict = latchkey.getAsDouble() / redisson.getAsDouble() <= goal ? " met" : " MISSED";
        }
        return String.format(Locale.ROOT, "≤ %.2f%s", goal, verdict);
    }

    // ---- summary -----------------------------------------------------------------------------

    private TextTable summaryTable() {
        TextTable table = new TextTable("scenario", "unit/s", "Latchkey", "Redisson", "ratio", "target",
                "p99 Latchkey", "p99 Redisson", "p99 ratio", "exclusion");
        outcomes.forEach((scenario, byLibrary) -> {
            RunOutcome latchkey = byLibrary.get(Library.LATCHKEY);
            RunOutcome redisson = byLibrary.get(Library.REDISSON);
            if (scenario.shape == Scenario.Shape.WATCHDOG) {
                Function<RunOutcome, OptionalDouble> perMinute = o -> perMinute(o, SuiteReport::scriptCalls);
                table.row(scenario.id, "renewal RTs/min", cell(latchkey, valueOf(latchkey, perMinute), TextTable::count),
                        cell(redisson, valueOf(redisson, perMinute), TextTable::count),
                        ratio(valueOf(latchkey, perMinute), valueOf(redisson, perMinute)), "", "", "", "",
                        held(latchkey) + " / " + held(redisson));
                return;
            }
            Function<RunOutcome, OptionalDouble> throughput = scenario.benchmarkClass == TwoJvmBenchmark.class
                    ? SuiteReport::bothJvms : o -> o.score;
            Function<RunOutcome, OptionalDouble> p99 = o -> o.metric(Keys.WAIT_P99);
            table.row(scenario.id, scenario.unit.equals("handoffs") ? "handoffs" : "acq",
                    cell(latchkey, valueOf(latchkey, throughput), TextTable::count),
                    cell(redisson, valueOf(redisson, throughput), TextTable::count),
                    ratio(valueOf(latchkey, throughput), valueOf(redisson, throughput)),
                    target(scenario, byLibrary, throughput),
                    cell(latchkey, valueOf(latchkey, p99), TextTable::millis),
                    cell(redisson, valueOf(redisson, p99), TextTable::millis),
                    ratio(valueOf(latchkey, p99), valueOf(redisson, p99)),
                    shortExclusion(latchkey) + " / " + shortExclusion(redisson));
        });
        return table;
    }

    // ---- values ------------------------------------------------------------------------------

    private static OptionalDouble valueOf(RunOutcome outcome, Function<RunOutcome, OptionalDouble> value) {
        if (outcome == null || outcome.status == RunOutcome.Status.SKIPPED) {
            return OptionalDouble.empty();
        }
        return value.apply(outcome);
    }

    private static OptionalDouble bothJvms(RunOutcome o) {
        OptionalDouble local = o.metric(Keys.ACQUISITIONS);
        OptionalDouble all = o.metric(Keys.ALL_ACQUISITIONS);
        OptionalDouble seconds = o.metric(Keys.SECONDS);
        if (o.score.isEmpty() || local.isEmpty() || all.isEmpty() || seconds.isEmpty() || seconds.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(o.score.getAsDouble() + (all.getAsDouble() - local.getAsDouble()) / seconds.getAsDouble());
    }

    private static OptionalDouble per(RunOutcome o, String amount, String count) {
        OptionalDouble a = o.metric(amount);
        OptionalDouble n = o.metric(count);
        if (a.isEmpty() || n.isEmpty() || n.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(a.getAsDouble() / n.getAsDouble());
    }

    private static OptionalDouble perMinute(RunOutcome o, OptionalDouble amount) {
        OptionalDouble seconds = o.metric(Keys.SECONDS);
        if (amount.isEmpty() || seconds.isEmpty() || seconds.getAsDouble() <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(amount.getAsDouble() * 60 / seconds.getAsDouble());
    }

    private static OptionalDouble perMinute(RunOutcome o, Function<RunOutcome, OptionalDouble> amount) {
        return perMinute(o, amount.apply(o));
    }

    /** @return the scripts run (EVAL, EVALSHA and their read-only and function kin): the round trips that carry them */
    private static OptionalDouble scriptCalls(RunOutcome o) {
        long scripts = calls(o).entrySet().stream()
                .filter(e -> e.getKey().startsWith("eval") || e.getKey().startsWith("fcall"))
                .mapToLong(Map.Entry::getValue).sum();
        return o.metrics.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(scripts);
    }

    private static OptionalDouble scaled(OptionalDouble value, double factor) {
        return value.isPresent() ? OptionalDouble.of(value.getAsDouble() * factor) : value;
    }

    private static String cell(RunOutcome outcome, OptionalDouble value, DoubleFunction<String> format) {
        if (outcome == null) {
            return "—";
        }
        if (outcome.status == RunOutcome.Status.SKIPPED) {
            return "skipped";
        }
        if (value.isEmpty()) {
            return outcome.status == RunOutcome.Status.FAILED ? "FAILED" : "—";
        }
        return format.apply(value.getAsDouble());
    }

    private static String ratio(OptionalDouble latchkey, OptionalDouble redisson) {
        if (latchkey.isEmpty() || redisson.isEmpty() || redisson.getAsDouble() == 0) {
            return "";
        }
        return String.format(Locale.ROOT, "%.2f", latchkey.getAsDouble() / redisson.getAsDouble());
    }

    private static String exclusion(RunOutcome outcome) {
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

    private static String shortExclusion(RunOutcome outcome) {
        String full = exclusion(outcome);
        return full.startsWith("ok") ? "ok" : full;
    }

    private static String held(RunOutcome outcome) {
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

    private static String commands(RunOutcome outcome) {
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
    private static String commandsPer(RunOutcome outcome) {
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

    private static Map<String, Long> calls(RunOutcome outcome) {
        Map<String, Long> calls = new TreeMap<>();
        outcome.metrics.stringPropertyNames().stream()
                .filter(key -> key.startsWith(Keys.COMMAND_PREFIX))
                .forEach(key -> calls.put(key.substring(Keys.COMMAND_PREFIX.length()),
                        Long.parseLong(outcome.metrics.getProperty(key))));
        return calls;
    }

    private static String micros(double nanos) {
        if (nanos < 10_000) {
            return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
        }
        return String.format(Locale.ROOT, "%,.0f µs", nanos / 1e3);
    }

    private static String decimal(double value) {
        return String.format(Locale.ROOT, "%,.1f", value);
    }
}
