package io.latchkey.faults;

import io.latchkey.measure.TextTable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The harness's table per lock kind, under the table per fault: what each kind was granted over
 * the whole run, what the checker found in its holds, each kind's longest stall (to tell which
 * kind a long one in the table per fault came from), and how much of the fast paths the run
 * drove: reads that entered beside other readers, and beside readers of their own worker (whom
 * local hand-off's shared read may admit without a round trip), and the scripts a RedLock hold
 * cost the masters that no fault touched. It decides nothing: {@link FaultReport} gives the
 * verdict on the same counters, summed per fault.
 */
final class KindReport {

    private final Map<String, String> counters;
    private final List<String> locks;
    private final long redLockScriptCalls;

    /**
     * @param counters the checker's per-kind counters, {@code <kind>:<counter>} → value
     * @param locks the harness's locks, {@code kind:name}
     * @param redLockScriptCalls the scripts each unfaulted RedLock master ran, or -1 without RedLocks
     */
    KindReport(Map<String, String> counters, List<String> locks, long redLockScriptCalls) {
        this.counters = counters;
        this.locks = locks;
        this.redLockScriptCalls = redLockScriptCalls;
    }

    String render() {
        TextTable table = new TextTable("kind", "locks", "holds", "reads", "beside readers", "beside own readers",
                "overlaps", "stale refused", "stale accepted", "longest stall");
        for (LockKind kind : LockKind.values()) {
            int count = locksOf(kind);
            if (count == 0) {
                continue;
            }
            table.row(kind.key(), Integer.toString(count), count(kind, Checker.HOLDS),
                    kind.hasReaders ? count(kind, Checker.READS) : "-",
                    kind.hasReaders ? count(kind, Checker.READS_BESIDE_READERS) : "-",
                    kind.hasReaders ? count(kind, Checker.READS_BESIDE_OWN_READERS) : "-",
                    count(kind, Checker.OVERLAPS), count(kind, Checker.REFUSED), count(kind, Checker.STALE_ACCEPTED),
                    TextTable.millis(TimeUnit.MILLISECONDS.toNanos(value(kind, Checker.MAX_GAP_MS))));
        }
        StringBuilder text = new StringBuilder("\nPer lock kind, over the whole run:\n");
        text.append(table.render(2));
        text.append("  beside readers: reads that entered while other readers were inside; beside own readers:\n")
                .append("  while readers of the same worker were (those its shared read may admit without a round\n")
                .append("  trip); longest stall: the longest time a lock of the kind went without a new grant.\n");
        if (redLockScriptCalls >= 0) {
            long holds = value(LockKind.REDLOCK, Checker.HOLDS);
            text.append(String.format(Locale.ROOT, "  RedLock: each of the two unfaulted masters ran %,d scripts, %s per hold "
                    + "(acquire, release, renewals, fencing raises and retries; fewer with local hand-off)%n",
                    redLockScriptCalls, holds == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) redLockScriptCalls / holds)));
        }
        return text.toString();
    }

    private int locksOf(LockKind kind) {
        return (int) locks.stream().filter(lock -> lock.startsWith(kind.key() + ":")).count();
    }

    private String count(LockKind kind, String counter) {
        return TextTable.count(value(kind, counter));
    }

    private long value(LockKind kind, String counter) {
        String value = counters.get(kind.key() + ":" + counter);
        return value == null ? 0 : Long.parseLong(value);
    }
}
