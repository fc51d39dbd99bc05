package io.latchkey.demo;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's independent witness, kept in the JVM that runs every instance: which item numbers
 * were sold and how often, and whether two holders were ever inside the critical section at once.
 * It does not trust Redis or the lock; it only watches what the workers did. Thread-safe.
 */
final class SalesLedger {

    private final int stock;
    /** Per segment: the first item number before it, and one past its last. */
    private final int[] offsets;
    /** Index = item number from 1 to stock (a segment's offset plus the level a sale read): each must be sold exactly once. */
    private final AtomicIntegerArray timesSold;
    /** Per segment: workers inside its critical section. */
    private final AtomicIntegerArray holders;
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong outOfRange = new AtomicLong();
    private final AtomicLong sold = new AtomicLong();

    /**
     * @param stock the items
     * @param segments how many parts the stock is split into, each under a lock of its own: the
     *     first {@code stock % segments} get one item more than the others
     */
    SalesLedger(int stock, int segments) {
        this.stock = stock;
        this.offsets = new int[segments + 1];
        for (int i = 0; i < segments; i++) {
            offsets[i + 1] = offsets[i] + stock / segments + (i < stock % segments ? 1 : 0);
        }
        this.timesSold = new AtomicIntegerArray(stock + 1);
        this.holders = new AtomicIntegerArray(segments);
    }

    /** @return how many segments the stock is split into */
    int segments() {
        return holders.length();
    }

    /** @return the items of one segment: its stock level at the start */
    int stockOf(int segment) {
        return offsets[segment + 1] - offsets[segment];
    }

    /** A worker entered a segment's critical section; counts an overlap if someone else is inside it. */
    void enter(int segment) {
        if (holders.incrementAndGet(segment) != 1) {
            overlaps.incrementAndGet();
        }
    }

    /** The worker left the segment's critical section. */
    void exit(int segment) {
        holders.decrementAndGet(segment);
    }

    /**
     * @param segment the segment sold from
     * @param level the segment's stock level the sale read before writing {@code level - 1}
     */
    void sold(int segment, long level) {
        sold.incrementAndGet();
        if (level < 1 || level > stockOf(segment)) {
            outOfRange.incrementAndGet();
        } else {
            timesSold.incrementAndGet(offsets[segment] + (int) level);
        }
    }

    int stock() {
        return stock;
    }

    long sold() {
        return sold.get();
    }

    /** @return sales beyond the stock: more sales than items */
    long oversold() {
        return Math.max(0, sold.get() - stock);
    }

    /** @return times a segment's critical section had two holders at once */
    long overlaps() {
        return overlaps.get();
    }

    /** @return sales of a stock level outside 1..the segment's stock: reading a value no correct run can see */
    long outOfRange() {
        return outOfRange.get();
    }

    /** @return sales of an item (stock level) that another sale had already sold */
    long soldTwice() {
        long twice = 0;
        for (int level = 1; level <= stock; level++) {
            twice += Math.max(0, timesSold.get(level) - 1);
        }
        return twice;
    }

    /** @return items (stock levels) nobody sold */
    long unsold() {
        long unsold = 0;
        for (int level = 1; level <= stock; level++) {
            if (timesSold.get(level) == 0) {
                unsold++;
            }
        }
        return unsold;
    }
}
