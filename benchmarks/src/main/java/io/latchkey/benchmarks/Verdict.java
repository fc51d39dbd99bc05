package io.latchkey.benchmarks;

import java.util.Locale;

/**
 * What a comparison of two {@link Estimate}s may claim: a direction only where their confidence
 * intervals do not overlap, "within noise" otherwise; and for a target ratio, "met" only where
 * even the least favourable ends of the intervals reach it, "MISSED" only where even the most
 * favourable ends fall short. The ratio shown is always that of the means. Immutable.
 */
final class Verdict {

    /** The word for overlapping intervals. */
    static final String NOISE = "within noise";

    private Verdict() {
    }

    /**
     * @param latchkey Latchkey's estimate
     * @param other the comparator's estimate of the same quantity
     * @param higherIsBetter true for throughput, false for wait times
     * @return such as {@code 1.32 faster}, {@code 0.41 better}, {@code 0.96 within noise}
     */
    static String compare(Estimate latchkey, Estimate other, boolean higherIsBetter) {
        String ratio = ratio(latchkey, other);
        if (latchkey.above(other)) {
            return ratio + " " + (higherIsBetter ? "faster" : "worse");
        }
        if (other.above(latchkey)) {
            return ratio + " " + (higherIsBetter ? "slower" : "better");
        }
        return ratio + " " + NOISE;
    }

    /**
     * @param latchkey Latchkey's throughput
     * @param other the comparator's
     * @param goal the ratio Latchkey / comparator to reach
     * @return {@code ≥ 3.0 met}, {@code ≥ 3.0 MISSED} or {@code ≥ 3.0 within noise}
     */
    static String atLeast(Estimate latchkey, Estimate other, double goal) {
        String word;
        if (other.low > 0 && latchkey.low / other.high >= goal) {
            word = "met";
        } else if (other.low > 0 && latchkey.high / other.low < goal) {
            word = "MISSED";
        } else {
            word = NOISE;
        }
        return String.format(Locale.ROOT, "≥ %.1f %s", goal, word);
    }

    /**
     * @param latchkey Latchkey's wait time
     * @param other the comparator's
     * @param goal the fraction of the comparator's wait Latchkey's may be at most
     * @return {@code ≤ 0.20 met}, {@code ≤ 0.20 MISSED} or {@code ≤ 0.20 within noise}
     */
    static String atMost(Estimate latchkey, Estimate other, double goal) {
        String word;
        if (other.low > 0 && latchkey.high / other.low <= goal) {
            word = "met";
        } else if (other.high > 0 && latchkey.low / other.high > goal) {
            word = "MISSED";
        } else {
            word = NOISE;
        }
        return String.format(Locale.ROOT, "≤ %.2f %s", goal, word);
    }

    private static String ratio(Estimate latchkey, Estimate other) {
        if (other.mean == 0) {
            return "—";
        }
        return String.format(Locale.ROOT, "%.2f", latchkey.mean / other.mean);
    }
}
