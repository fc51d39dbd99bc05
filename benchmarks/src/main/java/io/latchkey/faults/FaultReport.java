package io.latchkey.faults;

import io.latchkey.measure.LatencyHistogram;
import io.latchkey.measure.TextTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The harness's final table, one row per fault, and its verdict: a row fails when the checker saw
 * an overlap that is no known limit of its fault or any accepted stale write, when a
 * {@code tryAcquire(wait)} threw although its wait outlived every outage the harness makes, when a
 * worker hung, or when the checker itself failed. Under the table: each fault's exceptions by call
 * and type, and the {@link KindReport}.
 */
final class FaultReport {

    private final Map<Fault, FaultTally> tallies;
    private final Map<String, String> counters;
    private final List<Fault> schedule;
    private final List<String> notes;
    private final long elapsedNanos;
    private final String leaseDescription;
    private final KindReport kinds;
    private final List<String> failures = new ArrayList<>();

    FaultReport(Map<Fault, FaultTally> tallies, Map<String, String> counters, List<Fault> schedule,
            List<String> notes, long elapsedNanos, String leaseDescription, KindReport kinds) {
        this.tallies = tallies;
        this.counters = counters;
        this.schedule = schedule;
        this.notes = List.copyOf(notes);
        this.elapsedNanos = elapsedNanos;
        this.leaseDescription = leaseDescription;
        this.kinds = kinds;
    }

    String render() {
        TextTable table = new TextTable("fault", "runs", "acquisitions", "overlaps", "stale refused",
                "stale accepted", "wait exceptions", "other exceptions", "leases lost", "longest stall", "p99 wait", "hung", "verdict");
        long acquisitions = 0;
        long overlaps = 0;
        long refused = 0;
        long staleAccepted = 0;
        long waitExceptions = 0;
        long otherExceptions = 0;
        long hung = 0;
        LatencyHistogram allWaits = new LatencyHistogram();
        failures.clear();
        for (Fault fault : schedule) {
            FaultTally tally = tallies.get(fault);
            long faultAcquisitions = counter(fault, Checker.ACQUISITIONS);
            long faultOverlaps = counter(fault, Checker.OVERLAPS);
            long faultRefused = counter(fault, Checker.REFUSED);
            long faultStale = counter(fault, Checker.STALE_ACCEPTED);
            long stallMs = counter(fault, Checker.MAX_GAP_MS);
            String verdict = verdict(fault, tally, faultOverlaps, faultStale);
            table.row(fault.label, Long.toString(tally.runs.get()), TextTable.count(faultAcquisitions),
                    TextTable.count(faultOverlaps), TextTable.count(faultRefused), TextTable.count(faultStale),
                    TextTable.count(tally.exceptions(LockCall.WAIT)),
                    TextTable.count(tally.exceptions() - tally.exceptions(LockCall.WAIT)),
                    TextTable.count(tally.leasesLost.get()),
                    TextTable.millis(TimeUnit.MILLISECONDS.toNanos(stallMs)),
                    tally.waits.count() == 0 ? "-" : TextTable.millis(tally.waits.percentile(0.99)),
                    Long.toString(tally.hungWorkers.get()), verdict);
            acquisitions += faultAcquisitions;
            overlaps += faultOverlaps;
            refused += faultRefused;
            staleAccepted += faultStale;
            waitExceptions += tally.exceptions(LockCall.WAIT);
            otherExceptions += tally.exceptions() - tally.exceptions(LockCall.WAIT);
            hung += tally.hungWorkers.get();
            allWaits.add(tally.waits);
        }
        table.separator();
        table.row("all", "", TextTable.count(acquisitions), TextTable.count(overlaps), TextTable.count(refused),
                TextTable.count(staleAccepted), TextTable.count(waitExceptions), TextTable.count(otherExceptions),
                "", "",
                allWaits.count() == 0 ? "-" : TextTable.millis(allWaits.percentile(0.99)), Long.toString(hung),
                failures.isEmpty() ? "ok" : "FAIL");
        if (acquisitions == 0) {
            failures.add("no hold was granted at all");
        }
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "%nPer fault (%s), %.0f s in all:%n",
                leaseDescription, elapsedNanos / 1e9));
        text.append(table.render(2));
        text.append("  overlaps: entries that found another holder inside (checker's entry/exit marks);\n")
                .append("  stale refused / accepted: writes the fencing-token check refused / let through although\n")
                .append("  a later hold had entered or had the same token; longest stall: longest time a lock went\n")
                .append("  without a new grant; hung: workers silent for 3 leases (or the wait and a lease) after\n")
                .append("  the fault ended.\n")
                .append("  wait exceptions: LockExceptions of tryAcquire(wait) calls, thrown before their wait was\n")
                .append("  over (must be 0); other exceptions: those of acquire(), tryAcquire(0) and close(), and of\n")
                .append("  a tryAcquire(wait) that met the outage at the end of its wait.\n");
        appendExceptions(text);
        for (String note : notes) {
            text.append("  note: ").append(note).append('\n');
        }
        text.append(kinds.render());
        text.append('\n');
        if (failures.isEmpty()) {
            text.append(String.format(Locale.ROOT,
                    "PASS: %,d acquisitions under %d faults; every violation is a known limit of its fault%n",
                    acquisitions, schedule.size()));
        } else {
            for (String failure : failures) {
                text.append("FAIL: ").append(failure).append('\n');
            }
        }
        return text.toString();
    }

    /** Each fault's exceptions by call and type; a wait's with its first message, which says why. */
    private void appendExceptions(StringBuilder text) {
        boolean any = false;
        for (Fault fault : schedule) {
            FaultTally tally = tallies.get(fault);
            if (tally.exceptions() == 0) {
                continue;
            }
            if (!any) {
                text.append("  exceptions by call and type:\n");
                any = true;
            }
            List<String> calls = new ArrayList<>();
            for (LockCall call : LockCall.values()) {
                Map<String, Long> byType = tally.exceptionsByType(call);
                if (byType.isEmpty()) {
                    continue;
                }
                List<String> types = new ArrayList<>();
                byType.forEach((type, count) -> types.add(type + " " + count
                        + (call == LockCall.WAIT || call == LockCall.WAIT_OVER
                                ? " (\"" + tally.example(call, type) + "\")" : "")));
                calls.add(call.label + ": " + String.join(", ", types));
            }
            text.append("    ").append(fault.label).append(": ").append(String.join("; ", calls)).append('\n');
        }
    }

    /** @return true if {@link #render()} found nothing to fail; valid after it */
    boolean passed() {
        return failures.isEmpty();
    }

    private String verdict(Fault fault, FaultTally tally, long overlaps, long staleAccepted) {
        List<String> problems = new ArrayList<>();
        if (overlaps > 0 && !fault.overlapIsKnownLimit) {
            problems.add(overlaps + " overlaps");
        }
        if (staleAccepted > 0) {
            problems.add(staleAccepted + " stale writes accepted");
        }
        if (tally.exceptions(LockCall.WAIT) > 0) {
            problems.add(tally.exceptions(LockCall.WAIT) + " tryAcquire(wait) calls threw although their wait outlived the fault");
        }
        if (tally.hungWorkers.get() > 0) {
            problems.add(tally.hungWorkers.get() + " hung or crashed workers");
        }
        if (tally.checkerFailures.get() > 0) {
            problems.add(tally.checkerFailures.get() + " checker calls failed");
        }
        if (!problems.isEmpty()) {
            failures.add(fault.label + ": " + String.join(", ", problems));
            return "FAIL";
        }
        return overlaps > 0 || staleAccepted > 0 ? "known limit" : "ok";
    }

    private long counter(Fault fault, String name) {
        String value = counters.get(fault.name() + ":" + name);
        return value == null ? 0 : Long.parseLong(value);
    }
}
