package io.latchkey.benchmarks;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SuiteReportTest {

    private static Scenario scenario(String id) {
        return Scenario.all().stream().filter(s -> s.id.equals(id)).findFirst().orElseThrow();
    }

    private static Properties metrics(long acquisitions, long p99Nanos) {
        Properties metrics = new Properties();
        metrics.setProperty(Keys.ACQUISITIONS, Long.toString(acquisitions));
        metrics.setProperty(Keys.ALL_ACQUISITIONS, Long.toString(acquisitions));
        metrics.setProperty(Keys.SECONDS, "10");
        metrics.setProperty(Keys.WAIT_P50, "100000");
        metrics.setProperty(Keys.WAIT_P99, Long.toString(p99Nanos));
        metrics.setProperty(Keys.WAIT_P999, Long.toString(p99Nanos * 2));
        metrics.setProperty(Keys.CLIENT_CPU_NANOS, Long.toString(acquisitions * 80_000));
        metrics.setProperty(Keys.REDIS_COMMANDS, Long.toString(acquisitions * 9));
        metrics.setProperty(Keys.REDIS_CPU_NANOS, Long.toString(acquisitions * 20_000));
        metrics.setProperty(Keys.VERIFIED, Long.toString(acquisitions + 500));
        metrics.setProperty(Keys.COMMAND_PREFIX + "evalsha", Long.toString(acquisitions * 2));
        return metrics;
    }

    @Test
    void rendersRatiosTargetsAndExclusionPerScenario() {
        SuiteReport report = new SuiteReport();
        Scenario hot = scenario("hot-8");
        report.add(RunOutcome.ok(hot, Library.LATCHKEY, 10_000, 300, metrics(100_000, 4_000_000), 20));
        report.add(RunOutcome.ok(hot, Library.REDISSON, 2_500, 100, metrics(25_000, 50_000_000), 20));

        String text = report.render("env");

        assertTrue(text.contains("hot-8 — one hot lock, 8 threads in one JVM"), text);
        assertTrue(text.matches("(?s).*acquisitions/s \\(JMH\\) +10,000 +2,500 +4\\.00 +≥ 3\\.0 met\\n.*"), text);
        assertTrue(text.matches("(?s).*wait p99 +4\\.0 ms +50\\.0 ms +0\\.08 +≤ 0\\.20 met\\n.*"), text);
        assertTrue(text.matches("(?s).*mutual exclusion +ok, 100,500 checked +ok, 25,500 checked\\n.*"), text);
        assertTrue(text.contains("Redis commands per acquisition, Latchkey: evalsha 2.00\n"), text);
        assertTrue(text.matches("(?s).*\\n  hot-8 +acq +10,000 +2,500 +4\\.00 +≥ 3\\.0 met .*ok / ok\\n.*"), text);
        assertFalse(report.failed());
    }

    @Test
    void showsSkipsAndFailuresAndCountsFailures() {
        SuiteReport report = new SuiteReport();
        Scenario fair = scenario("fair-8");
        Properties violated = new Properties();
        violated.setProperty(Keys.VIOLATION, "MUTUAL EXCLUSION VIOLATED: two holders");
        report.add(RunOutcome.skipped(fair, Library.LATCHKEY, "needs io.latchkey:lock-fair on the class path"));
        report.add(RunOutcome.failed(fair, Library.REDISSON, "MUTUAL EXCLUSION VIOLATED: two holders", violated, 3));

        String text = report.render("env");

        assertTrue(text.contains("Latchkey skipped: needs io.latchkey:lock-fair on the class path"), text);
        assertTrue(text.contains("Redisson FAILED: MUTUAL EXCLUSION VIOLATED: two holders"), text);
        assertTrue(text.matches("(?s).*mutual exclusion +skipped +VIOLATED\\n.*"), text);
        assertTrue(report.failed());
    }

    @Test
    void aRedissonFailureThatIsNoViolationIsReportedButDoesNotFailTheSuite() {
        SuiteReport report = new SuiteReport();
        Scenario queue = scenario("fair-queue-1");
        report.add(RunOutcome.ok(queue, Library.LATCHKEY, 5_000, 100, metrics(50_000, 1_000_000), 20));
        report.add(RunOutcome.failed(queue, Library.REDISSON, "STALLED: no owner was granted the fair lock",
                new Properties(), 31));

        String text = report.render("env");

        assertTrue(text.contains("Redisson FAILED: STALLED: no owner was granted the fair lock"), text);
        assertTrue(text.matches("(?s).*mutual exclusion +ok, 50,500 checked +not verified\\n.*"), text);
        assertFalse(report.failed());
    }

    @Test
    void watchdogTableCountsRenewalRoundTripsPerMinute() {
        SuiteReport report = new SuiteReport();
        Scenario watchdog = scenario("watchdog");
        Properties latchkey = new Properties();
        latchkey.setProperty(Keys.SECONDS, "60");
        latchkey.setProperty(Keys.REDIS_COMMANDS, "120000");
        latchkey.setProperty(Keys.COMMAND_PREFIX + "evalsha", "60");
        latchkey.setProperty(Keys.COMMAND_PREFIX + "pexpire", "60000");
        latchkey.setProperty("watchdog.locks", "10000");
        latchkey.setProperty("watchdog.still.held", "10000");
        Properties redisson = new Properties();
        redisson.putAll(latchkey);
        redisson.setProperty(Keys.COMMAND_PREFIX + "evalsha", "600");
        report.add(RunOutcome.ok(watchdog, Library.LATCHKEY, 60, Double.NaN, latchkey, 70));
        report.add(RunOutcome.ok(watchdog, Library.REDISSON, 60, Double.NaN, redisson, 70));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*renewal round trips \\(EVAL\\*\\) / min +60 +600 +0\\.10\\n.*"), text);
        assertTrue(text.matches("(?s).*\\n  watchdog +renewal RTs/min +60 +600 +0\\.10 .*all held / all held\\n.*"), text);
    }
}
