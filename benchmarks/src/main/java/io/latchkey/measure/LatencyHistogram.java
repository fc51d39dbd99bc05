package io.latchkey.measure;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A concurrent histogram of durations in nanoseconds, log-linear like HdrHistogram's: each power
 * of two is split into {@value #SUB_BUCKETS} equal buckets, so any reported percentile is within
 * about 1.6 % of the true value, from one nanosecond to centuries, in 30 KB.
 *
 * <p>Thread-safe: {@link #record(long)} is a single atomic increment, cheap next to a Redis round
 * trip, so many threads can share one instance. Reads ({@link #percentile(double)}) while others
 * record see a consistent-enough snapshot for progress reports; read after the writers stopped
 * for exact counts.
 */
public final class LatencyHistogram {

    private static final int SUB_BUCKET_BITS = 6;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    private static final int BUCKETS = (64 - SUB_BUCKET_BITS + 1) * SUB_BUCKETS;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong max = new AtomicLong();

    /**
     * Adds one duration.
     *
     * @param nanos the duration; a negative value (a clock anomaly) counts as zero
     */
    public void record(long nanos) {
        long value = Math.max(0, nanos);
        counts.incrementAndGet(bucketOf(value));
        total.incrementAndGet();
        max.accumulateAndGet(value, Math::max);
    }

    /**
     * Adds every duration another histogram recorded, as if recorded here.
     *
     * @param other the histogram to add, not null; may be this one's sibling of another thread
     */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            long n = other.counts.get(i);
            if (n != 0) {
                counts.addAndGet(i, n);
            }
        }
        total.addAndGet(other.total.get());
        max.accumulateAndGet(other.max.get(), Math::max);
    }

    /** @return how many durations were recorded */
    public long count() {
        return total.get();
    }

    /** @return the longest duration recorded, in nanoseconds; 0 if none */
    public long max() {
        return max.get();
    }

    /**
     * @param fraction the quantile, in (0, 1], such as 0.99
     * @return the smallest recorded bucket's representative value (its middle) such that at least
     *     {@code fraction} of the durations are at or below it, in nanoseconds; 0 if nothing was recorded
     * @throws IllegalArgumentException if {@code fraction} is not in (0, 1]
     */
    public long percentile(double fraction) {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction must be in (0, 1]: " + fraction);
        }
        long n = total.get();
        if (n == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(fraction * n));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts.get(i);
            if (seen >= rank) {
                return Math.min(middleOf(i), max.get());
            }
        }
        return max.get();
    }

    /** Forgets every recorded duration. Not atomic against concurrent {@link #record(long)}. */
    public void reset() {
        for (int i = 0; i < BUCKETS; i++) {
            counts.set(i, 0);
        }
        total.set(0);
        max.set(0);
    }

    static int bucketOf(long value) {
        if (value < SUB_BUCKETS) {
            return (int) value;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value);
        int shift = exponent - SUB_BUCKET_BITS;
        int subBucket = (int) (value >>> shift) - SUB_BUCKETS;
        return (shift + 1) * SUB_BUCKETS + subBucket;
    }

    static long lowerBoundOf(int bucket) {
        if (bucket < SUB_BUCKETS) {
            return bucket;
        }
        int shift = bucket / SUB_BUCKETS - 1;
        long subBucket = bucket % SUB_BUCKETS;
        return (SUB_BUCKETS + subBucket) << shift;
    }

    static long middleOf(int bucket) {
        if (bucket < SUB_BUCKETS) {
            return bucket;
        }
        int shift = bucket / SUB_BUCKETS - 1;
        return lowerBoundOf(bucket) + ((1L << shift) >>> 1);
    }
}
