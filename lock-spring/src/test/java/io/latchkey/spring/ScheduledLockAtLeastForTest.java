package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.testing.RedisServer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Two nodes (two application contexts in one JVM, one Redis) run the same fast {@code @Scheduled}
 * job every second, the second node's clock {@link #SKEW} behind the first's, as a cluster's clocks
 * are: with {@code lockAtLeastFor} the job runs once a second across both nodes; without it, on
 * each node in turn, the later node finding the lock already free.
 */
class ScheduledLockAtLeastForTest {

    /** How far the second node's clock is behind: its trigger of a second comes that much later. */
    static final Duration SKEW = Duration.ofMillis(200);
    /** The jobs' period, as their cron says. */
    static final Duration PERIOD = Duration.ofSeconds(1);
    /** The job's {@code lockAtLeastFor}: above the skew, below the period. */
    static final Duration AT_LEAST = Duration.ofMillis(600);
    /** How many runs of each job are watched. */
    static final int RUNS = 5;

    private static final List<Run> runs = new CopyOnWriteArrayList<>();

    private static RedisServer redis;
    private static ConfigurableApplicationContext first;
    private static ConfigurableApplicationContext second;
    private static long watchedFrom;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        first = TestApplication.run(Node.class, "latchkey.address=" + redis.uri(), "node.name=first", "node.clock-behind=0ms");
        second = TestApplication.run(Node.class, "latchkey.address=" + redis.uri(), "node.name=second",
                "node.clock-behind=" + SKEW.toMillis() + "ms");
        watchedFrom = System.nanoTime(); // both nodes up: runs from here on are watched
        await().atMost(Duration.ofSeconds(20)).until(() -> watched("report:at-least").size() >= RUNS
                && watched("report:plain").size() >= RUNS);
    }

    @AfterAll
    static void stop() {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void withLockAtLeastForTheJobRunsOncePerPeriodAcrossBothNodes() {
        List<Run> seen = watched("report:at-least");
        // Without lockAtLeastFor the later node's trigger, SKEW after the first's, finds the lock
        // free: two runs SKEW apart in every period. With it, the lock is held past that trigger.
        for (int i = 1; i < RUNS; i++) {
            Duration gap = Duration.ofNanos(seen.get(i).at - seen.get(i - 1).at);
            // (Less a little: a run's time is read just after its hold began.)
            assertThat(gap).as("between runs %d and %d of %s", i - 1, i, describe(seen))
                    .isGreaterThanOrEqualTo(AT_LEAST.minusMillis(20));
            // Once per period, not once per two: a trigger after the release runs the job.
            assertThat(gap).as("between runs %d and %d of %s", i - 1, i, describe(seen)).isLessThan(PERIOD.multipliedBy(2));
        }
    }

    @Test
    void withoutLockAtLeastForTheFastJobRunsOnEachNodeInTurn() {
        List<Run> seen = watched("report:plain");
        assertThat(seen.stream().map(Run::node).collect(Collectors.toSet())).as(describe(seen)).isEqualTo(Set.of("first", "second"));
        List<Duration> gaps = new ArrayList<>();
        for (int i = 1; i < RUNS; i++) {
            gaps.add(Duration.ofNanos(seen.get(i).at - seen.get(i - 1).at));
        }
        assertThat(gaps).as(describe(seen)).anySatisfy(gap -> assertThat(gap).isLessThan(AT_LEAST));
    }

    /** The first {@link #RUNS} runs of a job since both nodes were up, in order. */
    private static List<Run> watched(String job) {
        return runs.stream().filter(run -> run.job.equals(job) && run.at - watchedFrom > 0).limit(RUNS).toList();
    }

    private static String describe(List<Run> seen) {
        return seen.stream().map(run -> run.node + " at +" + Duration.ofNanos(run.at - watchedFrom).toMillis() + " ms")
                .collect(Collectors.joining(", ", "[", "]"));
    }

    /** One run of a job: on which node, when. */
    record Run(String job, String node, long at) {
    }

    /** A node: the jobs, and a scheduler on the node's own clock. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Node {

        @Bean
        ReportJobs reportJobs(@Value("${node.name}") String node) {
            return new ReportJobs(node);
        }

        /** The clock that the cron triggers read: this node's, behind the other's by {@code node.clock-behind}. */
        @Bean
        ThreadPoolTaskScheduler taskScheduler(@Value("${node.clock-behind}") Duration behind, @Value("${node.name}") String node) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setPoolSize(2);
            scheduler.setThreadNamePrefix(node + "-scheduling-");
            scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), behind.negated()));
            return scheduler;
        }
    }

    /** The same fast job twice, every second on every node: with {@code lockAtLeastFor}, and without. */
    public static class ReportJobs {

        private final String node;

        ReportJobs(String node) {
            this.node = node;
        }

        @Scheduled(cron = "* * * * * *")
        @Locked(name = "report:at-least", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP, lockAtLeastFor = "600ms")
        public void reportAtLeast() {
            runs.add(new Run("report:at-least", node, System.nanoTime()));
        }

        @Scheduled(cron = "* * * * * *")
        @Locked(name = "report:plain", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP)
        public void reportPlain() {
            runs.add(new Run("report:plain", node, System.nanoTime()));
        }
    }
}
