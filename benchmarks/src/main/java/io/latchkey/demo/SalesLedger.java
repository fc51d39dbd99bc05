package io.latchkey.demo;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's independent witness, kept in the JVM that runs every instance: which item numbers
 * were sold and how often, and whether two holders were ever inside the critical section at once.
 * It does not trust Redis or the lock; it only watches what the workers did. Thread-safe.
 */
final class SalesLedger {

    private final int stock;
    /** Index = the stock level a sale read, from 1 to stock: each must be sold exactly once. */
    private final AtomicIntegerArray timesSold;
    private final AtomicInteger holders = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong outOfRange = new AtomicLong();
    private final AtomicLong sold = new AtomicLong();

    SalesLedger(int stock) {
        this.stock = stock;
        this.timesSold = new AtomicIntegerArray(stock + 1);
    }

    /** A worker entered the critical section; counts an overlap if someone else is inside. */
    void enter() {
        if (holders.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
    }

    /** The worker left the critical section. */
    void exit() {
        holders.decrementAndGet();
    }

    /** @param level the stock level the sale read before writing {@code level - 1} */
    void sold(long level) {
        sold.incrementAndGet();
        if (level < 1 || level > stock) {
            outOfRange.incrementAndGet();
        } else {
            timesSold.incrementAndGet((int) level);
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

    /** @return times the critical section had two holders at once */
    long overlaps() {
        return overlaps.get();
    }

    /** @return sales of a stock level outside 1..stock: reading a value no correct run can see */
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
