package io.latchkey.benchmarks;

import java.util.Arrays;
import java.util.Locale;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * A measured value as the mean of independent samples with its two-sided
 * {@value #CONFIDENCE_PERCENT} % Student-t confidence interval. The suite's samples are the
 * forks' results, each fork a fresh JVM (so the JIT, the heap and the connections differ from one
 * to the next); with a single fork, its measurement iterations, which share all of that and
 * therefore understate the spread. One sample gives no interval: every bound is infinite.
 * Immutable.
 */
final class Estimate {

    /** The confidence of every interval, in percent. */
    static final int CONFIDENCE_PERCENT = 95;

    final double mean;
    final double low;
    final double high;
    final int samples;

    private Estimate(double mean, double low, double high, int samples) {
        this.mean = mean;
        this.low = low;
        this.high = high;
        this.samples = samples;
    }

    /**
     * @param samples independent measurements of the same quantity; at least one
     * @return their mean and its confidence interval
     * @throws IllegalArgumentException if there are none, or one is not finite
     */
    static Estimate of(double... samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("samples must not be empty");
        }
        if (Arrays.stream(samples).anyMatch(s -> !Double.isFinite(s))) {
            throw new IllegalArgumentException("samples must be finite: " + Arrays.toString(samples));
        }
        int n = samples.length;
        double mean = Arrays.stream(samples).sum() / n;
        if (n == 1) {
            return new Estimate(mean, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 1);
        }
        double squares = Arrays.stream(samples).map(s -> (s - mean) * (s - mean)).sum();
        double standardError = Math.sqrt(squares / (n - 1) / n);
        // JMH's own statistics give no interval below three samples; two forks deserve one too.
        double t = new TDistribution(null, n - 1).inverseCumulativeProbability(0.5 + CONFIDENCE_PERCENT / 200.0);
        return new Estimate(mean, mean - t * standardError, mean + t * standardError, n);
    }

    /** @return whether there is an interval at all (two samples or more) */
    boolean bounded() {
        return samples > 1;
    }

    /** @return half the interval's width: the "±" of the mean; infinite for one sample */
    double halfWidth() {
        return (high - low) / 2;
    }

    /** @return whether this interval lies wholly above {@code other}'s */
    boolean above(Estimate other) {
        return low > other.high;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.4g ± %.2g (n=%d)", mean, halfWidth(), samples);
    }
}
