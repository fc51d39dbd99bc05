package io.latchkey.benchmarks;

import static io.latchkey.benchmarks.OutcomeText.commands;
import static io.latchkey.benchmarks.OutcomeText.commandsPer;
import static io.latchkey.benchmarks.OutcomeText.exclusion;
import static io.latchkey.benchmarks.OutcomeText.held;
import static io.latchkey.benchmarks.OutcomeText.shortExclusion;
import static io.latchkey.benchmarks.OutcomeText.violated;
import static io.latchkey.benchmarks.OutcomeValues.calls;
import static io.latchkey.benchmarks.OutcomeValues.per;
import static io.latchkey.benchmarks.OutcomeValues.perAcquisition;
import static io.latchkey.benchmarks.OutcomeValues.perMinute;
import static io.latchkey.benchmarks.OutcomeValues.scaled;
import static io.latchkey.benchmarks.OutcomeValues.scriptCalls;
import static io.latchkey.benchmarks.OutcomeValues.subscriptionChanges;
import static io.latchkey.benchmarks.OutcomeValues.valueOf;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import io.latchkey.measure.TextTable;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The suite's closing report: one table per scenario (Latchkey, Redisson, Spring, and Latchkey's
 * ratio to each comparator), then a summary with the targets, the Redis calls per
 * acquisition, and the notes. Throughput and wait p99 are shown as mean ± confidence interval
 * across forks ({@link Estimate}), and a ratio carries a verdict only where the intervals allow
 * one ({@link Verdict}). Built from the {@link RunOutcome}s.
 */
final class SuiteReport {

    /** The libraries Latchkey is compared with, in column order. */
    private static final List<Library> COMPARATORS = List.of(Library.REDISSON, Library.SPRING);

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

    String render(String environment) {
        StringBuilder out = new StringBuilder();
        out.append("\n==== Latchkey vs Redisson and Spring: results ====\n").append(environment).append('\n');
        outcomes.forEach((scenario, byLibrary) -> {
            out.append('\n').append(scenario.id).append(" — ").append(scenario.title).append('\n');
            TextTable table = scenario.shape == Scenario.Shape.WATCHDOG
                    ? watchdogTable(scenario, byLibrary) : throughputTable(scenario, byLibrary);
            out.append(table.render(2));
            for (RunOutcome outcome : byLibrary.values()) {
                if (outcome.status == RunOutcome.Status.SKIPPED || calls(outcome).isEmpty()
                        || Library.IN_JVM_REFERENCES.contains(outcome.library)) {
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
            for (Library reference : Library.REFERENCES) {
                if (scenario.libraries.contains(reference) && byLibrary.get(reference) != null
                        && byLibrary.get(reference).status == RunOutcome.Status.OK) {
                    out.append("  ").append(reference.title)
                            .append(reference == Library.RAW_LETTUCE ? " (Latchkey's two scripts, no client): " : " (ReentrantLock): ")
                            .append(estimateCell(scenario, byLibrary, reference, Measure.SCORE, TextTable::count))
                            .append(' ').append(scenario.unit).append("/s, wait p99 ")
                            .append(cell(scenario, byLibrary, reference,
                                    valueOf(byLibrary.get(reference), o -> o.metric(Keys.WAIT_P99)), TextTable::millis))
                            .append("; Latchkey / it: ").append(verdict(byLibrary, reference, Measure.SCORE, true))
                            .append('\n');
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
        out.append("\n==== Summary (mean ± ").append(Estimate.CONFIDENCE_PERCENT).append(" % confidence interval;"
                + " ratio = Latchkey / comparator, with a verdict only where the intervals do not overlap) ====\n");
        out.append(summaryTable().render(2));
        out.append("\n==== Redis calls per acquisition (INFO commandstats deltas over the measured iterations,"
                + " all JVMs): script calls = EVAL, EVALSHA and kin; subscription changes = (S|P)SUBSCRIBE"
                + " and (S|P)UNSUBSCRIBE ====\n");
        out.append(callsTable().render(2));
        if (outcomes.keySet().stream().anyMatch(scenario -> scenario.inJvmTarget.isPresent())) {
            out.append("\n==== The in-JVM limit (ratio = Latchkey / java.util.concurrent.locks.ReentrantLock over the"
                    + " same critical section and threads, with a verdict only where the intervals do not overlap) ====\n");
            out.append(inJvmTable().render(2));
        }
        if (!notes.isEmpty()) {
            out.append("\nNotes:\n");
            notes.forEach(note -> out.append("  - ").append(note).append('\n'));
        }
        return out.toString();
    }

    // ---- per scenario ------------------------------------------------------------------------

    private TextTable throughputTable(Scenario scenario, Map<Library, RunOutcome> byLibrary) {
        TextTable table = new TextTable("", "Latchkey", "Redisson", "Spring", "Latchkey/Redisson", "Latchkey/Spring",
                "target");
        String one = scenario.unit.substring(0, scenario.unit.length() - 1);
        Measure throughput = Measure.throughput(scenario);
        boolean twoJvms = Measure.twoJvms(scenario);
        estimateRow(table, scenario, byLibrary, twoJvms ? "acquisitions/s, both JVMs" : scenario.unit + "/s (JMH)",
                throughput, true, TextTable::count, throughputTarget(scenario, byLibrary));
        if (twoJvms) {
            estimateRow(table, scenario, byLibrary, "acquisitions/s, this JVM (JMH)", Measure.SCORE, true, TextTable::count, "");
        }
        table.row(samplesRow(scenario, byLibrary));
        String wait = scenario.unit.equals("handoffs") ? "handoff" : "wait";
        row(table, scenario, byLibrary, wait + " p50", o -> o.metric(Keys.WAIT_P50), TextTable::millis);
        estimateRow(table, scenario, byLibrary, wait + (twoJvms ? " p99, this JVM" : " p99"),
                Measure.metric(Keys.WAIT_P99), false, TextTable::millis, twoJvms ? "" : p99Target(scenario, byLibrary));
        if (twoJvms) {
            estimateRow(table, scenario, byLibrary, wait + " p99, second JVM", Measure.metric(Keys.SECOND_JVM_WAIT_P99),
                    false, TextTable::millis, "");
            estimateRow(table, scenario, byLibrary, wait + " p99, the worse JVM", Measure.WORSE_JVM_P99, false, TextTable::millis,
                    p99Target(scenario, byLibrary));
            row(table, scenario, byLibrary, "longest run of grants to one JVM while the other waited",
                    o -> o.metric(Keys.LONGEST_RUN), TextTable::count);
        }
        row(table, scenario, byLibrary, wait + " p99.9", o -> o.metric(Keys.WAIT_P999), TextTable::millis);
        row(table, scenario, byLibrary, "client CPU / " + one, o -> per(o, Keys.CLIENT_CPU_NANOS, Keys.ACQUISITIONS),
                SuiteReport::micros);
        row(table, scenario, byLibrary, "Redis commands / " + one + " (incl. in scripts)",
                o -> per(o, Keys.REDIS_COMMANDS, Keys.ALL_ACQUISITIONS), SuiteReport::twoDecimals);
        row(table, scenario, byLibrary, "script calls (EVAL*) / " + one, o -> perAcquisition(o, scriptCalls(o)),
                SuiteReport::twoDecimals);
        row(table, scenario, byLibrary, "subscription changes / " + one,
                o -> perAcquisition(o, subscriptionChanges(o)), SuiteReport::threeDecimals);
        row(table, scenario, byLibrary, "Redis CPU / " + one, o -> per(o, Keys.REDIS_CPU_NANOS, Keys.ALL_ACQUISITIONS),
                SuiteReport::micros);
        table.row("mutual exclusion", exclusionCell(scenario, byLibrary, Library.LATCHKEY),
                exclusionCell(scenario, byLibrary, Library.REDISSON), exclusionCell(scenario, byLibrary, Library.SPRING));
        return table;
    }

    private TextTable watchdogTable(Scenario scenario, Map<Library, RunOutcome> byLibrary) {
        TextTable table = new TextTable("", "Latchkey", "Redisson", "Spring", "Latchkey/Redisson", "Latchkey/Spring", "");
        row(table, scenario, byLibrary, "locks held", o -> o.metric("watchdog.locks"), TextTable::count);
        row(table, scenario, byLibrary, "hold (s)", o -> scaled(o.metric("watchdog.hold.millis"), 1e-3),
                SuiteReport::decimal);
        row(table, scenario, byLibrary, "lease (s), renewed every third",
                o -> scaled(o.metric("watchdog.lease.millis"), 1e-3), SuiteReport::decimal);
        row(table, scenario, byLibrary, "renewal round trips (EVAL*) / min", o -> perMinute(o, scriptCalls(o)),
                TextTable::count);
        row(table, scenario, byLibrary, "Redis commands incl. in scripts / min",
                o -> perMinute(o, o.metric(Keys.REDIS_COMMANDS)), TextTable::count);
        row(table, scenario, byLibrary, "client CPU / min (ms)",
                o -> scaled(perMinute(o, o.metric(Keys.CLIENT_CPU_NANOS)), 1e-6), SuiteReport::decimal);
        row(table, scenario, byLibrary, "Redis CPU / min (ms)",
                o -> scaled(perMinute(o, o.metric(Keys.REDIS_CPU_NANOS)), 1e-6), SuiteReport::decimal);
        row(table, scenario, byLibrary, "still held after the hold", o -> o.metric("watchdog.still.held"),
                TextTable::count);
        row(table, scenario, byLibrary, "time to take them all (ms)",
                o -> scaled(o.metric("watchdog.acquire.nanos"), 1e-6), TextTable::count);
        row(table, scenario, byLibrary, "time to release them all (ms)",
                o -> scaled(o.metric("watchdog.release.nanos"), 1e-6), TextTable::count);
        return table;
    }

    /** A row of merged values and the plain ratios of Latchkey's to each comparator's. */
    private static void row(TextTable table, Scenario scenario, Map<Library, RunOutcome> byLibrary, String label,
            Function<RunOutcome, OptionalDouble> value, DoubleFunction<String> format) {
        List<String> cells = new ArrayList<>();
        cells.add(label);
        for (Library library : Library.OVER_REDIS) {
            cells.add(cell(scenario, byLibrary, library, valueOf(byLibrary.get(library), value), format));
        }
        OptionalDouble latchkey = valueOf(byLibrary.get(Library.LATCHKEY), value);
        for (Library comparator : COMPARATORS) {
            cells.add(ratio(latchkey, valueOf(byLibrary.get(comparator), value)));
        }
        cells.add("");
        table.row(cells.toArray(String[]::new));
    }

    /** A row of means ± intervals, and the ratios to each comparator with the verdict the intervals allow. */
    private static void estimateRow(TextTable table, Scenario scenario, Map<Library, RunOutcome> byLibrary,
            String label, Measure measure, boolean higherIsBetter, DoubleFunction<String> format, String target) {
        List<String> cells = new ArrayList<>();
        cells.add(label);
        for (Library library : Library.OVER_REDIS) {
            cells.add(estimateCell(scenario, byLibrary, library, measure, format));
        }
        for (Library comparator : COMPARATORS) {
            cells.add(verdict(byLibrary, comparator, measure, higherIsBetter));
        }
        cells.add(target);
        table.row(cells.toArray(String[]::new));
    }

    private static String[] samplesRow(Scenario scenario, Map<Library, RunOutcome> byLibrary) {
        List<String> cells = new ArrayList<>();
        cells.add("  samples of the interval");
        for (Library library : Library.OVER_REDIS) {
            RunOutcome outcome = byLibrary.get(library);
            if (!scenario.libraries.contains(library)) {
                cells.add("n/a");
            } else if (outcome == null || outcome.status != RunOutcome.Status.OK) {
                cells.add("—");
            } else if (outcome.forks.size() > 1) {
                cells.add(outcome.forks.size() + " forks");
            } else {
                cells.add("1 fork: " + outcome.forks.get(0).iterations.length + " it.");
            }
        }
        cells.addAll(List.of("", "", ""));
        return cells.toArray(String[]::new);
    }

    private static String verdict(Map<Library, RunOutcome> byLibrary, Library comparator, Measure measure,
            boolean higherIsBetter) {
        Optional<Estimate> latchkey = measure.estimate(byLibrary.get(Library.LATCHKEY));
        Optional<Estimate> other = measure.estimate(byLibrary.get(comparator));
        if (latchkey.isEmpty() || other.isEmpty()) {
            return "";
        }
        return Verdict.compare(latchkey.get(), other.get(), higherIsBetter);
    }

    private static String throughputTarget(Scenario scenario, Map<Library, RunOutcome> byLibrary) {
        if (scenario.target.isEmpty()) {
            return "";
        }
        Measure throughput = Measure.throughput(scenario);
        Optional<Estimate> latchkey = throughput.estimate(byLibrary.get(Library.LATCHKEY));
        Optional<Estimate> redisson = throughput.estimate(byLibrary.get(Library.REDISSON));
        if (latchkey.isEmpty() || redisson.isEmpty()) {
            return String.format(Locale.ROOT, "≥ %.1f", scenario.target.getAsDouble());
        }
        return Verdict.atLeast(latchkey.get(), redisson.get(), scenario.target.getAsDouble());
    }

    /** The wait target: Latchkey's p99 (for two JVMs, the worse JVM's) at most this fraction of Redisson's. */
    private static String p99Target(Scenario scenario, Map<Library, RunOutcome> byLibrary) {
        if (scenario.p99Target.isEmpty()) {
            return "";
        }
        Measure p99 = Measure.waitP99(scenario);
        Optional<Estimate> latchkey = p99.estimate(byLibrary.get(Library.LATCHKEY));
        Optional<Estimate> redisson = p99.estimate(byLibrary.get(Library.REDISSON));
        if (latchkey.isEmpty() || redisson.isEmpty()) {
            return String.format(Locale.ROOT, "≤ %.2f", scenario.p99Target.getAsDouble());
        }
        return Verdict.atMost(latchkey.get(), redisson.get(), scenario.p99Target.getAsDouble());
    }

    // ---- summary -----------------------------------------------------------------------------

    private TextTable summaryTable() {
        TextTable table = new TextTable("scenario", "unit/s", "Latchkey", "Redisson", "Latchkey/Redisson", "Spring",
                "Latchkey/Spring", "target", "p99 Latchkey", "p99 Redisson", "p99 Spring", "exclusion");
        outcomes.forEach((scenario, byLibrary) -> {
            if (scenario.shape == Scenario.Shape.WATCHDOG) {
                Function<RunOutcome, OptionalDouble> perMinute = o -> perMinute(o, scriptCalls(o));
                OptionalDouble latchkey = valueOf(byLibrary.get(Library.LATCHKEY), perMinute);
                OptionalDouble redisson = valueOf(byLibrary.get(Library.REDISSON), perMinute);
                table.row(scenario.id, "renewal RTs/min",
                        cell(scenario, byLibrary, Library.LATCHKEY, latchkey, TextTable::count),
                        cell(scenario, byLibrary, Library.REDISSON, redisson, TextTable::count),
                        ratio(latchkey, redisson), "n/a", "", "", "", "", "",
                        held(byLibrary.get(Library.LATCHKEY)) + " / " + held(byLibrary.get(Library.REDISSON)));
                return;
            }
            Measure throughput = Measure.throughput(scenario);
            Function<RunOutcome, OptionalDouble> p99 = Measure.waitP99(scenario).merged;
            table.row(scenario.id, scenario.unit.equals("handoffs") ? "handoffs" : "acq",
                    estimateCell(scenario, byLibrary, Library.LATCHKEY, throughput, TextTable::count),
                    estimateCell(scenario, byLibrary, Library.REDISSON, throughput, TextTable::count),
                    verdict(byLibrary, Library.REDISSON, throughput, true),
                    estimateCell(scenario, byLibrary, Library.SPRING, throughput, TextTable::count),
                    verdict(byLibrary, Library.SPRING, throughput, true),
                    throughputTarget(scenario, byLibrary),
                    cell(scenario, byLibrary, Library.LATCHKEY, valueOf(byLibrary.get(Library.LATCHKEY), p99),
                            TextTable::millis),
                    cell(scenario, byLibrary, Library.REDISSON, valueOf(byLibrary.get(Library.REDISSON), p99),
                            TextTable::millis),
                    cell(scenario, byLibrary, Library.SPRING, valueOf(byLibrary.get(Library.SPRING), p99),
                            TextTable::millis),
                    Library.stream(scenario).filter(Library.OVER_REDIS::contains).map(l -> shortExclusion(byLibrary.get(l)))
                            .collect(Collectors.joining(" / ")));
        });
        return table;
    }

    /** Latchkey against the in-JVM locks, for the scenarios that ran them, with the goal against the fair one. */
    private TextTable inJvmTable() {
        TextTable table = new TextTable("scenario", "Latchkey", "in-JVM fair", "Latchkey/in-JVM fair", "target",
                "in-JVM non-fair", "Latchkey/in-JVM non-fair");
        outcomes.forEach((scenario, byLibrary) -> {
            if (scenario.inJvmTarget.isEmpty()) {
                return;
            }
            Optional<Estimate> latchkey = Measure.SCORE.estimate(byLibrary.get(Library.LATCHKEY));
            Optional<Estimate> fair = Measure.SCORE.estimate(byLibrary.get(Library.IN_JVM_FAIR));
            double goal = scenario.inJvmTarget.getAsDouble();
            table.row(scenario.id,
                    estimateCell(scenario, byLibrary, Library.LATCHKEY, Measure.SCORE, TextTable::count),
                    estimateCell(scenario, byLibrary, Library.IN_JVM_FAIR, Measure.SCORE, TextTable::count),
                    verdict(byLibrary, Library.IN_JVM_FAIR, Measure.SCORE, true),
                    latchkey.isPresent() && fair.isPresent() ? Verdict.atLeast(latchkey.get(), fair.get(), goal)
                            : String.format(Locale.ROOT, "≥ %.1f", goal),
                    estimateCell(scenario, byLibrary, Library.IN_JVM, Measure.SCORE, TextTable::count),
                    verdict(byLibrary, Library.IN_JVM, Measure.SCORE, true));
        });
        return table;
    }

    private TextTable callsTable() {
        TextTable table = new TextTable("scenario", "scripts Latchkey", "scripts Redisson", "scripts Spring",
                "(un)subscribes Latchkey", "(un)subscribes Redisson", "(un)subscribes Spring");
        outcomes.forEach((scenario, byLibrary) -> {
            if (scenario.shape == Scenario.Shape.WATCHDOG) {
                return;
            }
            List<String> cells = new ArrayList<>();
            cells.add(scenario.id);
            for (Function<RunOutcome, OptionalDouble> count : List.<Function<RunOutcome, OptionalDouble>>of(
                    OutcomeValues::scriptCalls, OutcomeValues::subscriptionChanges)) {
                for (Library library : Library.OVER_REDIS) {
                    cells.add(cell(scenario, byLibrary, library,
                            valueOf(byLibrary.get(library), o -> perAcquisition(o, count.apply(o))),
                            SuiteReport::threeDecimals));
                }
            }
            table.row(cells.toArray(String[]::new));
        });
        return table;
    }

    // ---- cells -------------------------------------------------------------------------------

    private static String cell(Scenario scenario, Map<Library, RunOutcome> byLibrary, Library library,
            OptionalDouble value, DoubleFunction<String> format) {
        if (!scenario.libraries.contains(library)) {
            return "n/a";
        }
        RunOutcome outcome = byLibrary.get(library);
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

    /** A mean ± its interval's half width, or the mean alone where one sample gives no interval. */
    private static String estimateCell(Scenario scenario, Map<Library, RunOutcome> byLibrary, Library library,
            Measure measure, DoubleFunction<String> format) {
        RunOutcome outcome = byLibrary.get(library);
        Optional<Estimate> estimate = outcome == null || !scenario.libraries.contains(library)
                ? Optional.empty() : measure.estimate(outcome);
        if (estimate.isEmpty()) {
            return cell(scenario, byLibrary, library, valueOf(outcome, measure.merged), format);
        }
        Estimate e = estimate.get();
        return e.bounded() ? format.apply(e.mean) + " ± " + format.apply(e.halfWidth()) : format.apply(e.mean);
    }

    private static String exclusionCell(Scenario scenario, Map<Library, RunOutcome> byLibrary, Library library) {
        return scenario.libraries.contains(library) ? exclusion(byLibrary.get(library)) : "n/a";
    }

    private static String micros(double nanos) {
        if (nanos < 10_000) {
            return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
        }
        return String.format(Locale.ROOT, "%,.0f µs", nanos / 1e3);
    }

    private static String twoDecimals(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String threeDecimals(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String decimal(double value) {
        return String.format(Locale.ROOT, "%,.1f", value);
    }
}
