package io.latchkey.benchmarks;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Checks mutual exclusion in a benchmark, so that a fast wrong answer cannot win: every holder
 * increments a plain (non-atomic) counter of its lock inside the critical section, and counts
 * its acquisition outside it. If two holders ever overlap, increments get lost and the counters
 * fall behind the acquisitions; an overlap seen directly fails at once.
 *
 * <p>One slot per lock. {@link #enter(int)} and {@link #exit(int)} are called by the lock's
 * holder; {@link #verify()} while no one holds any lock (JMH's iteration tear-down). A read-write
 * lock's readers, who may hold it together, call {@link #enterShared(int)} and
 * {@link #exitShared(int)} instead: an overlap of a reader and a writer is caught as it happens,
 * and the plain counter counts the writers' holds only.
 */
public final class ExclusionCheck {

    private final long[] guarded;
    private final AtomicIntegerArray holders;
    private final AtomicIntegerArray sharers;
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder sharedAcquisitions = new LongAdder();
    private volatile String violation;

    /** @param locks how many locks (slots), at least 1 */
    public ExclusionCheck(int locks) {
        this.guarded = new long[locks];
        this.holders = new AtomicIntegerArray(locks);
        this.sharers = new AtomicIntegerArray(locks);
    }

    /**
     * The caller now holds lock {@code slot}: counts the holder and increments the plain counter.
     *
     * @param slot the lock's slot
     * @throws IllegalStateException if someone else holds the same lock right now
     */
    public void enter(int slot) {
        int inside = holders.incrementAndGet(slot);
        guarded[slot]++;
        if (inside != 1) {
            holders.decrementAndGet(slot);
            fail("two holders inside the critical section of lock slot " + slot + " at once");
        }
        if (sharers.get(slot) != 0) {
            holders.decrementAndGet(slot);
            fail("a writer inside the critical section of lock slot " + slot + " with readers");
        }
    }

    /**
     * The caller now holds lock {@code slot} as a reader, which others may do at once.
     *
     * @param slot the lock's slot
     * @throws IllegalStateException if a writer holds the same lock right now
     */
    public void enterShared(int slot) {
        sharers.incrementAndGet(slot);
        if (holders.get(slot) != 0) {
            sharers.decrementAndGet(slot);
            fail("a reader inside the critical section of lock slot " + slot + " with a writer");
        }
    }

    /**
     * The reader is about to release lock {@code slot}; its acquisition is counted.
     *
     * @param slot the lock's slot
     */
    public void exitShared(int slot) {
        sharers.decrementAndGet(slot);
        sharedAcquisitions.increment();
        acquisitions.increment();
    }

    /**
     * The caller is about to release lock {@code slot}; its acquisition is counted.
     *
     * @param slot the lock's slot
     */
    public void exit(int slot) {
        holders.decrementAndGet(slot);
        acquisitions.increment();
    }

    /** @return the exclusive acquisitions counted so far: the writers', and every plain lock's */
    public long exclusiveAcquisitions() {
        return acquisitions.sum() - sharedAcquisitions.sum();
    }

    /** @return the acquisitions counted so far, shared ones included */
    public long acquisitions() {
        return acquisitions.sum();
    }

    /** @return the first violation seen, or null */
    public String violation() {
        return violation;
    }

    /**
     * Checks only for an overlap seen so far; for use while holders may still be inside.
     *
     * @throws IllegalStateException if an overlap was seen
     */
    public void verifyNoOverlap() {
        if (violation != null) {
            throw new IllegalStateException("MUTUAL EXCLUSION VIOLATED: " + violation);
        }
    }

    /**
     * Compares the counters with the acquisitions; call only while no one holds a lock.
     *
     * @return the number of acquisitions verified
     * @throws IllegalStateException if they differ, or an overlap was seen
     */
    public long verify() {
        verifyNoOverlap();
        long counted = 0;
        for (long value : guarded) {
            counted += value;
        }
        long acquired = acquisitions.sum();
        long exclusive = acquired - sharedAcquisitions.sum();
        if (counted != exclusive) {
            fail("the plain counters under the locks sum to " + counted + " but there were " + exclusive
                    + " acquisitions: " + Math.abs(exclusive - counted) + " updates lost to overlapping holders");
        }
        return acquired;
    }

    private void fail(String what) {
        if (violation == null) {
            violation = what;
        }
        throw new IllegalStateException("MUTUAL EXCLUSION VIOLATED: " + what);
    }
}
