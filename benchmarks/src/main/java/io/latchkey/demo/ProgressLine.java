package io.latchkey.demo;

import io.latchkey.measure.TextTable;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live progress line: on a terminal, one line rewritten in place (carriage return) four
 * times a second; elsewhere (a pipe, a log, a test), a new line once a second. Runs on its own
 * daemon thread from {@link #start()} to {@link #stop()}.
 */
final class ProgressLine {

    private static final long TERMINAL_PERIOD_MILLIS = 250;
    private static final long LOG_PERIOD_MILLIS = 1000;
    private static final int BAR_WIDTH = 24;

    private final PrintStream out;
    private final boolean terminal;
    private final SalesLedger ledger;
    private final List<ShopInstance> instances;
    private final ScheduledExecutorService printer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "demo-progress");
        thread.setDaemon(true);
        return thread;
    });

    // Touched only by the printer thread, and by stop() after the printer has ended.
    private long startedNanos;
    private long lastNanos;
    private long lastSold;
    private int lastLength;

    ProgressLine(PrintStream out, boolean terminal, SalesLedger ledger, List<ShopInstance> instances) {
        this.out = out;
        this.terminal = terminal;
        this.ledger = ledger;
        this.instances = instances;
    }

    /** Starts printing; call once, when the workers start. */
    void start() {
        startedNanos = System.nanoTime();
        lastNanos = startedNanos;
        long period = terminal ? TERMINAL_PERIOD_MILLIS : LOG_PERIOD_MILLIS;
        printer.scheduleAtFixedRate(this::print, period, period, TimeUnit.MILLISECONDS);
    }

    /** Stops printing and leaves the final state on its own line. */
    void stop() {
        printer.shutdownNow();
        try {
            printer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        print();
        if (terminal) {
            out.println();
        }
        out.flush();
    }

    private void print() {
        long now = System.nanoTime();
        long sold = ledger.sold();
        double seconds = Math.max(1e-9, (now - lastNanos) / 1e9);
        double rate = (sold - lastSold) / seconds;
        lastNanos = now;
        lastSold = sold;

        int stock = ledger.stock();
        int filled = (int) Math.min(BAR_WIDTH, sold * BAR_WIDTH / Math.max(1, stock));
        StringBuilder line = new StringBuilder();
        line.append(String.format(Locale.ROOT, "%5.1f s  [%s%s] sold %s / %s  %s sales/s  per instance:",
                (now - startedNanos) / 1e9, "#".repeat(filled), ".".repeat(BAR_WIDTH - filled),
                TextTable.count(sold), TextTable.count(stock), TextTable.count(rate)));
        for (ShopInstance instance : instances) {
            line.append(' ').append(TextTable.count(instance.sold()));
        }
        if (ledger.overlaps() > 0 || ledger.oversold() > 0) {
            line.append("  VIOLATIONS: ").append(ledger.overlaps()).append(" overlaps, ")
                    .append(ledger.oversold()).append(" oversold");
        }
        if (terminal) {
            int length = line.length();
            line.append(" ".repeat(Math.max(0, lastLength - length)));
            lastLength = length;
            out.print('\r');
            out.print(line);
        } else {
            out.println(line);
        }
        out.flush();
    }
}
