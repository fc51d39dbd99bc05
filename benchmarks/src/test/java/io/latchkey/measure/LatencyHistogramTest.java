package io.latchkey.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void percentilesOfAUniformSpreadAreWithinTwoPercent() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (long micros = 1; micros <= 10_000; micros++) {
            histogram.record(micros * 1_000);
        }

        assertEquals(10_000, histogram.count());
        assertWithin(5_000_000, histogram.percentile(0.50));
        assertWithin(9_900_000, histogram.percentile(0.99));
        assertWithin(9_990_000, histogram.percentile(0.999));
        assertEquals(10_000_000, histogram.max());
        assertEquals(10_000_000, histogram.percentile(1.0));
    }

    @Test
    void everyBucketStartsWhereThePreviousEnds() {
        for (int bucket = 1; bucket < 3000; bucket++) {
            long lower = LatencyHistogram.lowerBoundOf(bucket);
            assertEquals(bucket, LatencyHistogram.bucketOf(lower));
            assertEquals(bucket - 1, LatencyHistogram.bucketOf(lower - 1));
        }
        assertEquals(LatencyHistogram.bucketOf(Long.MAX_VALUE), LatencyHistogram.bucketOf(Long.MAX_VALUE - 1));
    }

    @Test
    void addMergesCountsAndMax() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        b.record(1_000_000);
        b.record(-5);

        a.add(b);

        assertEquals(3, a.count());
        assertEquals(1_000_000, a.max());
        assertEquals(0, a.percentile(0.3));
    }

    @Test
    void emptyHistogramAnswersZeroAndRejectsNonsenseFractions() {
        LatencyHistogram histogram = new LatencyHistogram();

        assertEquals(0, histogram.percentile(0.99));
        assertThrows(IllegalArgumentException.class, () -> histogram.percentile(0));
        assertThrows(IllegalArgumentException.class, () -> histogram.percentile(1.5));
    }

    private static void assertWithin(long expected, long actual) {
        assertTrue(Math.abs(actual - expected) <= expected / 50, () -> "expected ~" + expected + " but was " + actual);
    }
}
