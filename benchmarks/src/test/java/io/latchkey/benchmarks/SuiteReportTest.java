package io.latchkey.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.benchmarks.TrialMetrics.Keys;
import java.util.List;
import java.util.Properties;
import java.util.Set;
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

    /** Three forks around {@code score}, the same side metrics in each. */
    private static RunOutcome threeForks(Scenario scenario, Library library, double score, Properties metrics) {
        return RunOutcome.ok(scenario, library, List.of(
                new RunOutcome.Fork(score * 0.98, new double[] {score * 0.98}, metrics),
                new RunOutcome.Fork(score, new double[] {score}, metrics),
                new RunOutcome.Fork(score * 1.02, new double[] {score * 1.02}, metrics)), 60);
    }

    @Test
    void rendersRatiosTargetsAndExclusionPerScenario() {
        SuiteReport report = new SuiteReport();
        Scenario hot = scenario("hot-8");
        report.add(threeForks(hot, Library.LATCHKEY, 10_000, metrics(100_000, 4_000_000)));
        report.add(threeForks(hot, Library.REDISSON, 2_500, metrics(25_000, 50_000_000)));
        report.add(threeForks(hot, Library.SPRING, 9_000, metrics(90_000, 5_000_000)));

        String text = report.render("env");

        assertTrue(text.contains("hot-8 — one hot lock, 8 threads in one JVM"), text);
        assertTrue(text.matches("(?s).*acquisitions/s \\(JMH\\) +10,000 ± 497 +2,500 ± 124 +9,000 ± 447"
                + " +4\\.00 faster +1\\.11 faster +≥ 3\\.0 met\\n.*"), text);
        assertTrue(text.matches("(?s).*samples of the interval +3 forks +3 forks +3 forks\\n.*"), text);
        assertTrue(text.matches("(?s).*wait p99 +4\\.0 ms ± 0\\.000 ms +50\\.0 ms ± 0\\.000 ms +5\\.0 ms ± 0\\.000 ms"
                + " +0\\.08 better +0\\.80 better +≤ 0\\.20 met\\n.*"), text);
        assertTrue(text.matches("(?s).*script calls \\(EVAL\\*\\) / acquisition +2\\.00 +2\\.00 +2\\.00 .*"), text);
        assertTrue(text.matches("(?s).*mutual exclusion +ok, 301,500 checked +ok, 76,500 checked +ok, 271,500 checked\\n.*"),
                text);
        assertTrue(text.contains("Redis commands per acquisition, Latchkey: evalsha 2.00\n"), text);
        assertTrue(text.matches("(?s).*\\n  hot-8 +acq +10,000 ± 497 +2,500 ± 124 +4\\.00 faster +9,000 ± 447 +1\\.11 faster"
                + " +≥ 3\\.0 met .*ok / ok / ok\\n.*"), text);
        assertTrue(text.matches("(?s).*\\n  hot-8 +2\\.000 +2\\.000 +2\\.000 +0\\.000 +0\\.000 +0\\.000\\n.*"), text);
        assertFalse(report.failed());
    }

    @Test
    void hotScenariosShowLatchkeyAgainstTheInJvmLocksWithTheGoalAgainstTheFairOne() {
        SuiteReport report = new SuiteReport();
        Scenario hot = scenario("hot-8");
        report.add(threeForks(hot, Library.LATCHKEY, 60_000, metrics(600_000, 400_000)));
        report.add(threeForks(hot, Library.REDISSON, 6_000, metrics(60_000, 4_000_000)));
        report.add(threeForks(hot, Library.IN_JVM_FAIR, 90_000, metrics(900_000, 300_000)));
        report.add(threeForks(hot, Library.IN_JVM, 9_000_000, metrics(90_000_000, 1_000)));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*acquisitions/s \\(JMH\\) +60,000 ± \\S+ +6,000 ± \\S+ +— +10\\.00 faster .*"), text);
        assertTrue(text.matches("(?s).*\\n  in-JVM fair \\(ReentrantLock\\): 90,000 ± \\S+ acquisitions/s, wait p99 0\\.300 ms;"
                + " Latchkey / it: 0\\.67 slower\\n.*"), text);
        assertTrue(text.matches("(?s).*==== The in-JVM limit .*\\n  hot-8 +60,000 ± \\S+ +90,000 ± \\S+ +0\\.67 slower"
                + " +≥ 0\\.8 MISSED +9,000,000 ± \\S+ +0\\.01 slower\\n.*"), text);
        assertTrue(text.matches("(?s).*\\n  hot-8 +acq .* ok / ok / —\\n.*"), text);
        assertFalse(report.failed());
    }

    @Test
    void onlyTheHotLockScenariosRunTheInJvmLocks() {
        for (Scenario scenario : Scenario.all()) {
            assertEquals(scenario.id.startsWith("hot-"), scenario.libraries.contains(Library.IN_JVM_FAIR), scenario.id);
            assertEquals(scenario.id.startsWith("hot-"), scenario.libraries.contains(Library.IN_JVM), scenario.id);
            assertEquals(scenario.id.startsWith("hot-"), scenario.inJvmTarget.isPresent(), scenario.id);
        }
    }

    @Test
    void theCeilingScenariosShowLatchkeyAgainstRawLettuceWithItsRedisCommands() {
        SuiteReport report = new SuiteReport();
        Scenario keys = scenario("many-keys");
        report.add(threeForks(keys, Library.LATCHKEY, 12_000, metrics(120_000, 4_000_000)));
        report.add(threeForks(keys, Library.REDISSON, 6_000, metrics(60_000, 8_000_000)));
        report.add(threeForks(keys, Library.RAW_LETTUCE, 16_000, metrics(160_000, 3_000_000)));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*\\n  raw Lettuce \\(Latchkey's two scripts, no client\\): 16,000 ± \\S+ acquisitions/s,"
                + " wait p99 3\\.0 ms; Latchkey / it: 0\\.75 slower\\n.*"), text);
        assertTrue(text.contains("Redis commands per acquisition, raw Lettuce: evalsha 2.00\n"), text);
        assertFalse(text.contains("==== The in-JVM limit"), text);
        assertFalse(report.failed());
    }

    @Test
    void onlyTheUncontendedLockAndManyKeysRunTheRedisCeiling() {
        for (Scenario scenario : Scenario.all()) {
            assertEquals(scenario.id.equals("uncontended-lock") || scenario.id.equals("many-keys"),
                    scenario.libraries.contains(Library.RAW_LETTUCE), scenario.id);
        }
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
        assertTrue(text.matches("(?s).*mutual exclusion +skipped +VIOLATED +n/a\\n.*"), text);
        assertTrue(report.failed());
    }

    @Test
    void aRedissonFailureThatIsNoViolationIsReportedButDoesNotFailTheSuite() {
        SuiteReport report = new SuiteReport();
        Scenario queue = scenario("fair-queue-1");
        report.add(RunOutcome.ok(queue, Library.LATCHKEY, 5_000, metrics(50_000, 1_000_000), 20));
        report.add(RunOutcome.failed(queue, Library.REDISSON, "STALLED: no owner was granted the fair lock",
                new Properties(), 31));

        String text = report.render("env");

        assertTrue(text.contains("Redisson FAILED: STALLED: no owner was granted the fair lock"), text);
        assertTrue(text.matches("(?s).*mutual exclusion +ok, 50,500 checked +not verified +n/a\\n.*"), text);
        assertFalse(report.failed());
    }

    @Test
    void aSingleSampleGivesNoVerdictAndTheComparisonSaysWithinNoise() {
        SuiteReport report = new SuiteReport();
        Scenario hot = scenario("hot-2");
        report.add(RunOutcome.ok(hot, Library.LATCHKEY, 10_000, metrics(100_000, 4_000_000), 20));
        report.add(RunOutcome.ok(hot, Library.REDISSON, 2_500, metrics(25_000, 50_000_000), 20));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*acquisitions/s \\(JMH\\) +10,000 +2,500 +— +4\\.00 within noise +≥ 3\\.0 within noise\\n.*"),
                text);
    }

    @Test
    void twoJvmsShowEachJvmsP99AndTheLongestRun() {
        SuiteReport report = new SuiteReport();
        Scenario two = scenario("two-jvms");
        Properties metrics = metrics(100_000, 4_000_000);
        metrics.setProperty(Keys.ALL_ACQUISITIONS, "200000");
        metrics.setProperty(Keys.SECOND_JVM_WAIT_P99, "7000000");
        metrics.setProperty(Keys.LONGEST_RUN, "42");
        report.add(RunOutcome.ok(two, Library.LATCHKEY, 10_000, metrics, 20));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*acquisitions/s, both JVMs +20,000 .*"), text);
        assertTrue(text.matches("(?s).*wait p99, this JVM +4\\.0 ms .*"), text);
        assertTrue(text.matches("(?s).*wait p99, second JVM +7\\.0 ms .*"), text);
        assertTrue(text.matches("(?s).*longest run of grants to one JVM while the other waited +42 .*"), text);
    }

    /** A two-JVM run's side metrics: the second JVM as fast as this one, its p99 and the longest run. */
    private static Properties twoJvmMetrics(long acquisitions, long p99Nanos, long secondP99Nanos, long longestRun) {
        Properties metrics = metrics(acquisitions, p99Nanos);
        metrics.setProperty(Keys.ALL_ACQUISITIONS, Long.toString(2 * acquisitions));
        metrics.setProperty(Keys.COMMAND_PREFIX + "evalsha", Long.toString(acquisitions / 5));
        metrics.setProperty(Keys.SECOND_JVM_WAIT_P99, Long.toString(secondP99Nanos));
        metrics.setProperty(Keys.LONGEST_RUN, Long.toString(longestRun));
        return metrics;
    }

    @Test
    void theTwoJvmRedLockRowReportsBothJvmsAgainstRedissonOnlyWithTheTwoJvmTargets() {
        Scenario red = scenario("redlock-two-jvms");
        assertEquals(Scenario.Kind.RED, red.kind);
        assertTrue(TwoJvmBenchmark.class.isAssignableFrom(red.benchmarkClass));
        assertEquals(Set.of(Library.LATCHKEY, Library.REDISSON), red.libraries);
        assertEquals(8, red.threads);
        SuiteReport report = new SuiteReport();
        report.add(threeForks(red, Library.LATCHKEY, 10_000, twoJvmMetrics(100_000, 4_000_000, 6_000_000, 9)));
        report.add(threeForks(red, Library.REDISSON, 1_000, twoJvmMetrics(10_000, 50_000_000, 60_000_000, 70)));

        String text = report.render("env");

        assertTrue(text.contains("redlock-two-jvms — one hot RedLock over 3 masters, 2 JVMs × 8 threads\n"), text);
        // Both JVMs: each fork's score plus the second JVM's 10,000 (Redisson 1,000) a second.
        assertTrue(text.matches("(?s).*acquisitions/s, both JVMs +20,000 ± 497 +2,000 ± 50 +n/a +10\\.00 faster"
                + " +≥ 3\\.0 met\\n.*"), text);
        assertTrue(text.matches("(?s).*wait p99, this JVM +4\\.0 ms ± 0\\.000 ms +50\\.0 ms ± 0\\.000 ms +n/a"
                + " +0\\.08 better\\n.*"), text);
        assertTrue(text.matches("(?s).*wait p99, second JVM +6\\.0 ms ± 0\\.000 ms +60\\.0 ms ± 0\\.000 ms .*"), text);
        assertTrue(text.matches("(?s).*wait p99, the worse JVM +6\\.0 ms ± 0\\.000 ms +60\\.0 ms ± 0\\.000 ms +n/a"
                + " +0\\.10 better +≤ 0\\.20 met\\n.*"), text);
        assertTrue(text.matches("(?s).*longest run of grants to one JVM while the other waited +9 +70 +n/a +0\\.13\\n.*"), text);
        // Script calls per acquisition of both JVMs, which the suite reports for each scenario.
        assertTrue(text.matches("(?s).*\\n  redlock-two-jvms +0\\.100 +0\\.100 +n/a .*"), text);
        assertTrue(text.matches("(?s).*\\n  redlock-two-jvms +acq +20,000 ± 497 +2,000 ± 50 +10\\.00 faster +n/a"
                + " +≥ 3\\.0 met .*ok / ok\\n.*"), text);
        assertFalse(report.failed());
    }

    @Test
    void aTwoJvmP99TargetJudgesTheWorseJvmSoOneStarvedJvmMissesIt() {
        Scenario two = scenario("two-jvms");
        SuiteReport report = new SuiteReport();
        // This JVM waits 4 ms at p99 against Redisson's 50; the second waits 30 ms against 40.
        report.add(threeForks(two, Library.LATCHKEY, 10_000, twoJvmMetrics(100_000, 4_000_000, 30_000_000, 9)));
        report.add(threeForks(two, Library.REDISSON, 1_000, twoJvmMetrics(10_000, 50_000_000, 40_000_000, 70)));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*wait p99, the worse JVM +30\\.0 ms ± 0\\.000 ms +50\\.0 ms ± 0\\.000 ms +— +0\\.60 better"
                + " +≤ 0\\.20 MISSED\\n.*"), text);
        // The summary's p99 is the worse JVM's too.
        assertTrue(text.matches("(?s).*\\n  two-jvms +acq .* +30\\.0 ms +50\\.0 ms +— +ok / ok / —\\n.*"), text);
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
        report.add(RunOutcome.ok(watchdog, Library.LATCHKEY, 60, latchkey, 70));
        report.add(RunOutcome.ok(watchdog, Library.REDISSON, 60, redisson, 70));

        String text = report.render("env");

        assertTrue(text.matches("(?s).*renewal round trips \\(EVAL\\*\\) / min +60 +600 +n/a +0\\.10 *\\n.*"), text);
        assertTrue(text.matches("(?s).*\\n  watchdog +renewal RTs/min +60 +600 +0\\.10 .*all held / all held\\n.*"), text);
    }
}
