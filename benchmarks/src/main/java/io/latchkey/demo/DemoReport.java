package io.latchkey.demo;

import io.latchkey.demo.DemoOptions.LockType;
import io.latchkey.measure.LatencyHistogram;
import io.latchkey.measure.TextTable;
import java.util.List;
import java.util.Locale;

/**
 * The demo's closing tables: what each instance sold and how long it waited, then every check
 * with its result and a one-line verdict.
 */
final class DemoReport {

    private final DemoOptions options;
    /** The lock kind of this sale: for {@code --lock segmented}, plain for the sale under one lock. */
    private final LockType kind;
    private final DemoRedis redis;
    private final SalesLedger ledger;
    private final List<ShopInstance> instances;
    private final long elapsedNanos;
    private final long stockLeft;
    private final List<Throwable> failures;
    /** The same sale under one lock, to report the speed-up over; null for none. */
    private final DemoReport baseline;

    DemoReport(DemoOptions options, LockType kind, DemoRedis redis, SalesLedger ledger, List<ShopInstance> instances,
            long elapsedNanos, long stockLeft, List<Throwable> failures, DemoReport baseline) {
        this.options = options;
        this.kind = kind;
        this.baseline = baseline;
        this.redis = redis;
        this.ledger = ledger;
        this.instances = instances;
        this.elapsedNanos = elapsedNanos;
        this.stockLeft = stockLeft;
        this.failures = failures;
    }

    /** @return whether every check passed and no worker failed */
    boolean passed() {
        return failures.isEmpty()
                && ledger.sold() == ledger.stock()
                && ledger.oversold() == 0
                && ledger.soldTwice() == 0
                && ledger.unsold() == 0
                && ledger.outOfRange() == 0
                && ledger.overlaps() == 0
                && stockLeft == 0;
    }

    /** @return how long the sale took */
    long elapsedNanos() {
        return elapsedNanos;
    }

    String render() {
        double seconds = elapsedNanos / 1e9;
        StringBuilder out = new StringBuilder("\n");

        TextTable sales = new TextTable("instance", "sold", "share", "acquisitions", "acq/s", "wait p50", "wait p99");
        long acquisitions = 0;
        for (ShopInstance instance : instances) {
            LatencyHistogram waits = instance.waits();
            sales.row("#" + instance.number(), TextTable.count(instance.sold()), share(instance.sold()),
                    TextTable.count(instance.acquisitions()), TextTable.count(instance.acquisitions() / seconds),
                    TextTable.millis(waits.percentile(0.50)), TextTable.millis(waits.percentile(0.99)));
            acquisitions += instance.acquisitions();
        }
        sales.separator().row("total", TextTable.count(ledger.sold()), share(ledger.sold()),
                TextTable.count(acquisitions), TextTable.count(acquisitions / seconds),
                TextTable.millis(combinedPercentile(0.50)), TextTable.millis(combinedPercentile(0.99)));
        out.append(sales.render(2)).append('\n');

        TextTable checks = new TextTable("check", "value", "result");
        checks.row("sold == stock (" + TextTable.count(ledger.stock()) + ")", TextTable.count(ledger.sold()),
                verdict(ledger.sold() == ledger.stock()));
        checks.row("oversold", TextTable.count(ledger.oversold()), verdict(ledger.oversold() == 0));
        checks.row("items sold twice", TextTable.count(ledger.soldTwice()), verdict(ledger.soldTwice() == 0));
        checks.row("items never sold", TextTable.count(ledger.unsold()), verdict(ledger.unsold() == 0));
        checks.row("stock levels out of range", TextTable.count(ledger.outOfRange()), verdict(ledger.outOfRange() == 0));
        checks.row("two holders at once", TextTable.count(ledger.overlaps()), verdict(ledger.overlaps() == 0));
        checks.row("stock left in Redis", stockLeft == Long.MIN_VALUE ? "unreadable" : TextTable.count(stockLeft),
                verdict(stockLeft == 0));
        checks.row("failed workers", Integer.toString(failures.size()), verdict(failures.isEmpty()));
        long timedOut = instances.stream().mapToLong(ShopInstance::timedOut).sum();
        if (timedOut > 0) {
            checks.row("lock calls timed out, made again", TextTable.count(timedOut), "info");
        }
        out.append(checks.render(2)).append('\n');

        for (Throwable failure : failures) {
            out.append("  worker failure: ").append(failure).append('\n');
        }
        String lock = kind == LockType.SEGMENTED ? kind.option + " lock, " + ledger.segments() + " segments" : kind.option + " lock";
        if (passed()) {
            out.append(String.format(Locale.ROOT,
                    "PASS: %s items sold exactly once by %d instances × %d threads in %.2f s (%s acquisitions/s, %s)%n",
                    TextTable.count(ledger.stock()), options.instances, options.threads, seconds,
                    TextTable.count(acquisitions / seconds), lock));
        } else {
            out.append(String.format(Locale.ROOT, "FAIL: mutual exclusion or the run broke; see the checks above (%s, %s)%n",
                    lock, String.join(", ", redis.uris())));
        }
        if (baseline != null) {
            // Sales per second, not acquisitions: a segmented buyer also takes a lock to find a segment empty.
            double before = baseline.ledger.sold() / (baseline.elapsedNanos / 1e9);
            double after = ledger.sold() / seconds;
            out.append(String.format(Locale.ROOT,
                    "Speed-up over one lock: %s sales/s under one lock (%.2f s), %s sales/s over %d segments (%.2f s): × %.1f%n",
                    TextTable.count(before), baseline.elapsedNanos / 1e9, TextTable.count(after), ledger.segments(), seconds,
                    after / before));
        }
        return out.toString();
    }

    private String share(long sold) {
        return String.format(Locale.ROOT, "%.1f %%", 100.0 * sold / Math.max(1, ledger.stock()));
    }

    /** Percentiles over every instance's waits, weighted by their counts. */
    private long combinedPercentile(double fraction) {
        LatencyHistogram merged = new LatencyHistogram();
        instances.forEach(instance -> merged.add(instance.waits()));
        return merged.percentile(fraction);
    }

    private static String verdict(boolean ok) {
        return ok ? "ok" : "VIOLATION";
    }
}
