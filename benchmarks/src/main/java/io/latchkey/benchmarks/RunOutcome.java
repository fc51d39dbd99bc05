package io.latchkey.benchmarks;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;

/** What one run (one scenario, one library) produced: a score and side metrics, a failure, or a skip. Immutable. */
final class RunOutcome {

    enum Status { OK, FAILED, SKIPPED }

    final Scenario scenario;
    final Library library;
    final Status status;
    /** JMH's primary score (operations per second), if it ran. */
    final OptionalDouble score;
    /** JMH's 99.9 % confidence half-width of the score, if it ran with more than one iteration. */
    final OptionalDouble scoreError;
    final Properties metrics;
    /** Why it failed or was skipped. */
    final String message;
    final long seconds;

    private RunOutcome(Scenario scenario, Library library, Status status, OptionalDouble score, OptionalDouble scoreError,
            Properties metrics, String message, long seconds) {
        this.scenario = scenario;
        this.library = library;
        this.status = status;
        this.score = score;
        this.scoreError = scoreError;
        this.metrics = metrics;
        this.message = message;
        this.seconds = seconds;
    }

    static RunOutcome ok(Scenario scenario, Library library, double score, double error, Properties metrics, long seconds) {
        return new RunOutcome(scenario, library, Status.OK, OptionalDouble.of(score),
                Double.isFinite(error) ? OptionalDouble.of(error) : OptionalDouble.empty(), metrics, null, seconds);
    }

    static RunOutcome failed(Scenario scenario, Library library, String message, Properties metrics, long seconds) {
        return new RunOutcome(scenario, library, Status.FAILED, OptionalDouble.empty(), OptionalDouble.empty(),
                metrics, message, seconds);
    }

    static RunOutcome skipped(Scenario scenario, Library library, String why) {
        return new RunOutcome(scenario, library, Status.SKIPPED, OptionalDouble.empty(), OptionalDouble.empty(),
                new Properties(), why, 0);
    }

    /** @return a side metric as a number, if the run wrote it */
    OptionalDouble metric(String key) {
        String value = metrics.getProperty(key);
        if (value == null) {
            return OptionalDouble.empty();
        }
        try {
            return OptionalDouble.of(Double.parseDouble(value));
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }

    /** @return a side metric as text, if the run wrote it */
    Optional<String> text(String key) {
        return Optional.ofNullable(metrics.getProperty(key));
    }
}
