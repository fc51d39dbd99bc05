package io.latchkey.faults;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * The live progress line: the fault under way and the run's totals so far, read from the checker.
 * Rewritten in place on a terminal; a plain line every few seconds otherwise (logs, tests).
 */
final class FaultProgress {

    private static final int LINES_EVERY_SECONDS = 5;

    private final PrintStream out;
    private final boolean console;
    private final Checker checker;
    private final Map<Fault, FaultTally> tallies;
    private int calls;

    FaultProgress(PrintStream out, boolean console, Checker checker, Map<Fault, FaultTally> tallies) {
        this.out = out;
        this.console = console;
        this.checker = checker;
        this.tallies = tallies;
    }

    /** Prints the line, now if the fault just changed, else as the medium allows. */
    synchronized void print(Fault fault) {
        if (!console && calls++ % LINES_EVERY_SECONDS != 0) {
            return;
        }
        long acquisitions = 0;
        long overlaps = 0;
        long refused = 0;
        long stale = 0;
        for (Map.Entry<String, String> counter : checker.counters().entrySet()) {
            long value = Long.parseLong(counter.getValue());
            String key = counter.getKey();
            if (key.endsWith(":" + Checker.ACQUISITIONS)) {
                acquisitions += value;
            } else if (key.endsWith(":" + Checker.OVERLAPS)) {
                overlaps += value;
            } else if (key.endsWith(":" + Checker.REFUSED)) {
                refused += value;
            } else if (key.endsWith(":" + Checker.STALE_ACCEPTED)) {
                stale += value;
            }
        }
        long exceptions = 0;
        long hung = 0;
        for (FaultTally tally : tallies.values()) {
            exceptions += tally.exceptions();
            hung += tally.hungWorkers.get();
        }
        String line = String.format(Locale.ROOT,
                "%-44s %,10d acquisitions | overlaps %,d | stale refused %,d | stale accepted %,d | "
                        + "lock exceptions %,d | hung %d",
                fault.label, acquisitions, overlaps, refused, stale, exceptions, hung);
        if (console) {
            out.print("\r" + line);
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Ends the line on a terminal. */
    synchronized void end() {
        if (console) {
            out.println();
        }
    }
}
