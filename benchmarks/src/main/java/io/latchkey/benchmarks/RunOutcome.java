package io.latchkey.benchmarks;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What one scenario produced for one library over all its forks: the forks' scores and side
 * metrics, a failure, or a skip. {@link #metrics} merges the forks' side metrics (counts added
 * up, maxima kept, percentiles and other values as the median of the forks), so that ratios such
 * as commands per acquisition cover every fork; {@link #estimate} gives a value's spread. Immutable.
 */
final class RunOutcome {

    enum Status { OK, FAILED, SKIPPED }

    /** One fork (one JVM) of one library in one scenario. Immutable. */
    static final class Fork {
        /** JMH's primary score: the mean of the measurement iterations. */
        final double score;
        /** Each measurement iteration's score. */
        final double[] iterations;
        final Properties metrics;

        Fork(double score, double[] iterations, Properties metrics) {
            this.score = score;
            this.iterations = iterations.clone();
            this.metrics = metrics;
        }

        /** @return a side metric of this fork as a number, if it wrote it */
        OptionalDouble metric(String key) {
            return number(metrics.getProperty(key));
        }
    }

    /** Added up over the forks: counts and durations (prefix match for the per-command counts). */
    private static final Set<String> ADDED = Set.of(Keys.ACQUISITIONS, Keys.ALL_ACQUISITIONS, Keys.SECONDS,
            Keys.CLIENT_CPU_NANOS, Keys.REDIS_COMMANDS, Keys.REDIS_CPU_NANOS, Keys.WAIT_COUNT, Keys.VERIFIED,
            "second.jvm.acquisitions.total", "exclusion.verified.both.jvms");
    /** The largest of the forks. */
    private static final Set<String> LARGEST = Set.of(Keys.WAIT_MAX, Keys.LONGEST_RUN);

    final Scenario scenario;
    final Library library;
    final Status status;
    final List<Fork> forks;
    /** The mean of the forks' JMH scores (operations per second), if it ran. */
    final OptionalDouble score;
    final Properties metrics;
    /** Why it failed or was skipped. */
    final String message;
    final long seconds;

    private RunOutcome(Scenario scenario, Library library, Status status, List<Fork> forks, Properties metrics,
            String message, long seconds) {
        this.scenario = scenario;
        this.library = library;
        this.status = status;
        this.forks = List.copyOf(forks);
        this.score = forks.isEmpty() || status != Status.OK ? OptionalDouble.empty()
                : forks.stream().mapToDouble(f -> f.score).average();
        this.metrics = metrics;
        this.message = message;
        this.seconds = seconds;
    }

    static RunOutcome ok(Scenario scenario, Library library, List<Fork> forks, long seconds) {
        if (forks.isEmpty()) {
            throw new IllegalArgumentException("forks must not be empty");
        }
        return new RunOutcome(scenario, library, Status.OK, forks, merge(forks), null, seconds);
    }

    /** A single fork, as a quick run or a test makes it. */
    static RunOutcome ok(Scenario scenario, Library library, double score, Properties metrics, long seconds) {
        return ok(scenario, library, List.of(new Fork(score, new double[] {score}, metrics)), seconds);
    }

    static RunOutcome failed(Scenario scenario, Library library, String message, Properties metrics, long seconds) {
        return new RunOutcome(scenario, library, Status.FAILED, List.of(), metrics, message, seconds);
    }

    static RunOutcome skipped(Scenario scenario, Library library, String why) {
        return new RunOutcome(scenario, library, Status.SKIPPED, List.of(), new Properties(), why, 0);
    }

    /**
     * The spread of a value across the forks; with a single fork, across its measurement
     * iterations, where the value is the JMH score plus a constant of the fork (as the second
     * JVM's rate is), else no interval.
     *
     * @param perFork the value in one fork
     * @param scoreBased whether the value is the fork's JMH score plus a constant of the fork
     * @return the estimate, if every fork has the value
     */
    Optional<Estimate> estimate(Function<Fork, OptionalDouble> perFork, boolean scoreBased) {
        if (status != Status.OK) {
            return Optional.empty();
        }
        double[] values = new double[forks.size()];
        for (int i = 0; i < values.length; i++) {
            OptionalDouble value = perFork.apply(forks.get(i));
            if (value.isEmpty() || !Double.isFinite(value.getAsDouble())) {
                return Optional.empty();
            }
            values[i] = value.getAsDouble();
        }
        if (values.length == 1 && scoreBased && forks.get(0).iterations.length > 1) {
            Fork only = forks.get(0);
            double shift = values[0] - only.score;
            return Optional.of(Estimate.of(Arrays.stream(only.iterations).map(v -> v + shift).toArray()));
        }
        return Optional.of(Estimate.of(values));
    }

    /** @return a side metric as a number (merged over the forks), if the run wrote it */
    OptionalDouble metric(String key) {
        return number(metrics.getProperty(key));
    }

    /** @return a side metric as text, if the run wrote it */
    Optional<String> text(String key) {
        return Optional.ofNullable(metrics.getProperty(key));
    }

    private static Properties merge(List<Fork> forks) {
        Properties merged = new Properties();
        Set<String> keys = forks.stream().flatMap(f -> f.metrics.stringPropertyNames().stream())
                .collect(Collectors.toCollection(TreeSet::new));
        for (String key : keys) {
            double[] values = forks.stream().map(f -> f.metric(key)).filter(OptionalDouble::isPresent)
                    .mapToDouble(OptionalDouble::getAsDouble).sorted().toArray();
            if (values.length < forks.size()) {
                // Text, or missing in some fork: the first fork's, as it is.
                forks.stream().map(f -> f.metrics.getProperty(key)).filter(v -> v != null).findFirst()
                        .ifPresent(v -> merged.setProperty(key, v));
                continue;
            }
            double value;
            if (ADDED.contains(key) || key.startsWith(Keys.COMMAND_PREFIX)) {
                value = Arrays.stream(values).sum();
            } else if (LARGEST.contains(key)) {
                value = values[values.length - 1];
            } else {
                int middle = values.length / 2;
                value = values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
            }
            merged.setProperty(key, value == Math.rint(value) && Math.abs(value) < 1e15
                    ? Long.toString((long) value) : Double.toString(value));
        }
        return merged;
    }

    /** @return the number a side metric's text holds (null: none), empty if none or not a number */
    static OptionalDouble number(String value) {
        if (value == null) {
            return OptionalDouble.empty();
        }
        try {
            return OptionalDouble.of(Double.parseDouble(value));
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }
}
