package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Locked(lockAtLeastFor = ...)} in one application: the method returns at once, its lock
 * stays held until that time has passed since it began, and the application's close releases
 * what still waits. The two-node schedule is {@link ScheduledLockAtLeastForTest}.
 */
class LockAtLeastForTest {

    /** The methods' {@code lockAtLeastFor}. */
    private static final Duration AT_LEAST = Duration.ofMillis(800);

    private static RedisServer redis;
    private static ConfigurableApplicationContext app;
    private static Jobs jobs;
    private static LockClient other;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        app = TestApplication.run(Beans.class, "latchkey.address=" + redis.uri(), "jobs.wait=0s", "jobs.at-least=800ms");
        jobs = app.getBean(Jobs.class);
        other = LockClient.create(redis.uri());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (other != null) {
            other.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aMethodReturnsAtOnceAndItsLockStaysHeldUntilLockAtLeastForHasPassed() {
        DistributedLock lock = other.getLock("jobs:sync");
        long called = System.nanoTime();
        assertThat(jobs.sync()).isEqualTo("ran");
        assertThat(Duration.ofNanos(System.nanoTime() - called)).as("the caller does not wait for the release")
                .isLessThan(AT_LEAST.dividedBy(2));
        assertThat(lock.isLocked()).isTrue();
        // The scheduler's thread calls again within the time: excluded like any other caller, not
        // a re-entry of its own hold.
        assertThat(jobs.sync()).isNull();
        assertThat(jobs.runs("sync")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !lock.isLocked());
        assertThat(Duration.ofNanos(System.nanoTime() - called)).isGreaterThanOrEqualTo(AT_LEAST);
        assertThat(jobs.sync()).isEqualTo("ran");
        assertThat(jobs.runs("sync")).isEqualTo(2);
    }

    @Test
    void aMethodThatFailsStillHoldsTheLockForLockAtLeastFor() {
        DistributedLock lock = other.getLock("jobs:failing");
        long called = System.nanoTime();
        assertThatThrownBy(jobs::failing).isInstanceOf(IllegalStateException.class).hasMessage("the job failed");
        assertThat(lock.isLocked()).isTrue();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !lock.isLocked());
        assertThat(Duration.ofNanos(System.nanoTime() - called)).isGreaterThanOrEqualTo(AT_LEAST);
    }

    @Test
    void anAsynchronousMethodsFutureCompletesAtOnceAndItsLockStaysHeld() throws Exception {
        DistributedLock lock = other.getLock("jobs:async");
        long called = System.nanoTime();
        CompletableFuture<String> result = jobs.async();
        assertThat(result.get(AT_LEAST.toMillis() / 2, TimeUnit.MILLISECONDS)).isEqualTo("ran");
        assertThat(lock.isLocked()).isTrue();
        assertThat(jobs.async().get(5, TimeUnit.SECONDS)).as("skipped while held").isNull();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !lock.isLocked());
        assertThat(Duration.ofNanos(System.nanoTime() - called)).isGreaterThanOrEqualTo(AT_LEAST);
        assertThat(jobs.runs("async")).isEqualTo(1);
    }

    @Test
    void aMethodLongerThanLockAtLeastForReleasesAtItsEnd() throws Exception {
        DistributedLock lock = other.getLock("jobs:slow");
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = jobs.slow(work);
        // The method's work outlasts the shortest hold (200 ms): it is released when the work ends.
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(lock::isLocked);
        work.complete("done");
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(lock.isLocked()).as("released before the future completed").isFalse();
    }

    @Test
    void aPlaceholderThatCannotBeResolvedFailsTheStartNamingTheMethod() {
        assertThatThrownBy(() -> TestApplication.run(Beans.class, "latchkey.address=" + redis.uri()).close())
                .hasStackTraceContaining("@Locked on public java.lang.String " + Jobs.class.getName() + ".sync()")
                .hasStackTraceContaining("Could not resolve placeholder 'jobs.wait'");
    }

    @Test
    void closingTheApplicationReleasesTheLocksThatWait() {
        try (ConfigurableApplicationContext closing = TestApplication.run(Beans.class, "latchkey.address=" + redis.uri(),
                "jobs.wait=0s", "jobs.at-least=800ms")) {
            assertThat(closing.getBean(Jobs.class).hourly()).isEqualTo("ran");
            assertThat(other.getLock("jobs:hourly").isLocked()).isTrue();
        }
        assertThat(other.getLock("jobs:hourly").isLocked()).isFalse();
    }

    @Test
    void lockAtLeastForLongerThanAFixedLeaseFailsTheStart() {
        assertThatThrownBy(() -> TestApplication.run(LeaseTooShort.class, "latchkey.address=" + redis.uri()).close())
                .rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public void " + ShortLease.class.getName() + ".run()")
                .hasMessageContaining("lockAtLeastFor (10s) is longer than leaseTime (5s)");
    }

    @Test
    void aNonPositiveLockAtLeastForFailsTheStart() {
        assertThatThrownBy(() -> TestApplication.run(ZeroAtLeast.class, "latchkey.address=" + redis.uri()).close())
                .rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public void " + Zero.class.getName() + ".run()")
                .hasMessageContaining("lockAtLeastFor must be positive: 0s");
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    /** Jobs with {@code lockAtLeastFor}, as an application writes them. */
    public static class Jobs {

        private final java.util.Map<String, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();

        /** {@return how often that job ran} @param job its name */
        public int runs(String job) {
            return runs.computeIfAbsent(job, name -> new AtomicInteger()).get();
        }

        private void ran(String job) {
            runs.computeIfAbsent(job, name -> new AtomicInteger()).incrementAndGet();
        }

        // A placeholder, as for @Scheduled: resolved from the environment at the start.
        @Locked(name = "jobs:sync", waitTime = "${jobs.wait}", onTimeout = Locked.OnTimeout.SKIP, lockAtLeastFor = "${jobs.at-least}")
        public String sync() {
            ran("sync");
            return "ran";
        }

        @Locked(name = "jobs:failing", waitTime = "0s", lockAtLeastFor = "800ms")
        public void failing() {
            throw new IllegalStateException("the job failed");
        }

        @Locked(name = "jobs:async", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP, lockAtLeastFor = "800ms", leaseTime = "10s")
        public CompletableFuture<String> async() {
            ran("async");
            return CompletableFuture.supplyAsync(() -> "ran");
        }

        @Locked(name = "jobs:slow", waitTime = "0s", lockAtLeastFor = "200ms")
        public CompletableFuture<String> slow(CompletableFuture<String> work) {
            return work;
        }

        @Locked(name = "jobs:hourly", waitTime = "0s", lockAtLeastFor = "1h")
        public String hourly() {
            return "ran";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LeaseTooShort {
        @Bean
        ShortLease shortLease() {
            return new ShortLease();
        }
    }

    /** A fixed lease that would run out before {@code lockAtLeastFor}. */
    public static class ShortLease {
        @Locked(name = "short", leaseTime = "5s", lockAtLeastFor = "10s")
        public void run() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ZeroAtLeast {
        @Bean
        Zero zero() {
            return new Zero();
        }
    }

    /** A {@code lockAtLeastFor} of nothing. */
    public static class Zero {
        @Locked(name = "zero", lockAtLeastFor = "0s")
        public void run() {
        }
    }
}
