package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LocalHandOff;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.testing.RedisServer;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/** The starter in a Spring Boot application against a real Redis. */
class LatchkeyStarterTest {

    private static RedisServer redis;
    private static ConfigurableApplicationContext app;
    private static OrderService orders;
    private static LockClient other;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        app = TestApplication.run("latchkey.address=" + redis.uri());
        orders = app.getBean(OrderService.class);
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
    void latchkeyPropertiesBindToTheLockConfig() {
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.watchdog-timeout=2s", "latchkey.command-timeout=300ms", "latchkey.fair-lock-wait-timeout=7s")) {
            LockConfig config = context.getBean(LockConfig.class);
            assertThat(config.address()).contains(redis.uri());
            assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(300));
            assertThat(config.fairLockWaitTimeout()).isEqualTo(Duration.ofSeconds(7));
            assertThat(config.localHandOff()).contains(LocalHandOff.DEFAULT);
        }
    }

    @Test
    void theKeyPrefixIsLatchkeyUnlessSetAndStartsTheKeysTheLocksDerive() {
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri())) {
            assertThat(context.getBean(LockConfig.class).keyPrefix()).isEqualTo("latchkey");
        }
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.key-prefix=billing")) {
            assertThat(context.getBean(LockConfig.class).keyPrefix()).isEqualTo("billing");
            LockClient client = context.getBean(LockClient.class);
            client.getLock("starter-prefix").lock();
            client.getLock("starter-prefix").unlock();
            assertThat((List<?>) redis.command("KEYS", "billing:fence:*")).isNotEmpty();
            assertThatThrownBy(() -> client.getLock("billing:anything")).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> TestApplication.run("latchkey.address=" + redis.uri(), "latchkey.key-prefix=billing:").close())
                .rootCause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
    }

    @Test
    void localHandOffIsOnUnlessTurnedOffAndTakesItsBounds() {
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.local-hand-off.enabled=false")) {
            assertThat(context.getBean(LockConfig.class).localHandOff()).isEmpty();
        }
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.local-hand-off.max-hand-offs=8")) {
            assertThat(context.getBean(LockConfig.class).localHandOff())
                    .contains(new LocalHandOff(8, LocalHandOff.DEFAULT.maxTime()));
        }
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri(),
                "latchkey.local-hand-off.max-time=5ms")) {
            assertThat(context.getBean(LockConfig.class).localHandOff())
                    .contains(new LocalHandOff(LocalHandOff.DEFAULT.maxHandOffs(), Duration.ofMillis(5)));
        }
    }

    @Test
    void springDataRedisPropertiesAreTheFallback() {
        try (ConfigurableApplicationContext context = TestApplication.run(
                "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())) {
            assertThat(context.getBean(LockConfig.class).address()).contains("redis://" + redis.host() + ':' + redis.port());
            DistributedLock lock = context.getBean(LockClient.class).getLock("spring:fallback");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void anApplicationsOwnClientReplacesTheAutoConfiguredOne() {
        try (ConfigurableApplicationContext context = new org.springframework.boot.builder.SpringApplicationBuilder(
                TestApplication.class, OwnClient.class).web(org.springframework.boot.WebApplicationType.NONE)
                .properties("latchkey.address=redis://127.0.0.1:1").run()) {
            assertThat(context.getBean(LockClient.class)).isSameAs(OwnClient.client);
        }
    }

    /** An application that makes its own client; the auto-configured one would fail to connect to port 1. */
    @org.springframework.context.annotation.Configuration
    static class OwnClient {
        static LockClient client;

        @org.springframework.context.annotation.Bean
        LockClient lockClient() {
            client = LockClient.create(redis.uri());
            return client;
        }
    }

    @Test
    void twoApplicationContextsExcludeEachOther() throws Exception {
        try (ConfigurableApplicationContext second = TestApplication.run("latchkey.address=" + redis.uri())) {
            int before = OrderService.counted; // other tests count too
            List<OrderService> services = List.of(orders, second.getBean(OrderService.class));
            ExecutorService threads = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    OrderService service = services.get(t % 2);
                    runs.add(threads.submit(() -> {
                        for (int i = 0; i < 50; i++) {
                            service.count();
                        }
                    }));
                }
                for (Future<?> run : runs) {
                    run.get();
                }
            } finally {
                threads.shutdown();
            }
            assertThat(OrderService.MOST_INSIDE).hasValue(1);
            assertThat(OrderService.counted - before).isEqualTo(200);
        }
    }

    @Test
    void theNameIsASpelTemplateOverTheArgumentsAndTheHoldIsReachableInside() {
        LockHold hold = orders.ship(new OrderService.Order(42));
        assertThat(hold.lock().getName()).isEqualTo("orders:42");
        assertThat(hold.fencingToken()).isPositive();
        assertThat(hold.isValid()).isFalse(); // released when the method returned
        assertThat(other.getLock("orders:42").isLocked()).isFalse();
        assertThat(orders.shipWith(new OrderService.Order(7), 3)).isEqualTo("orders:7:3");
        assertThatThrownBy(CurrentLock::fencingToken).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLockedMethodReentersItsOwnLockOnTheSameThread() {
        assertThat(orders.shipTwice(new OrderService.Order(5), orders)).isPositive();
    }

    @Test
    void aLockHeldElsewhereThrowsAfterTheWaitOrSkips() {
        DistributedLock busy = other.getLock("busy");
        busy.lockAsync(99L).join();
        try {
            int runs = OrderService.RUNS.get();
            long start = System.nanoTime();
            assertThatThrownBy(orders::busy).isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("'busy'").hasMessageContaining("PT0.2S");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(150), Duration.ofSeconds(5));
            assertThat(orders.busyOrSkip()).isEmpty();
            assertThat(OrderService.RUNS).hasValue(runs);
        } finally {
            busy.unlockAsync(99L).join();
        }
        assertThat(orders.busyOrSkip()).contains("ran");
    }

    @Test
    void anExceptionInsideTheMethodReleasesTheLock() {
        assertThatThrownBy(orders::fail).isInstanceOf(IllegalStateException.class).hasMessage("inside the lock");
        assertThat(other.getLock("failing").isLocked()).isFalse();
    }

    @Test
    void aFixedLeaseIsTakenAsGiven() {
        assertThat(orders.fixedLease()).isBetween(5_000L, 10_000L);
    }

    @Test
    void anAsyncMethodHoldsTheLockUntilItsFutureCompletes() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> result = orders.later("a", work);
        DistributedLock lock = other.getLock("async:a");
        assertThat(lock.isLocked()).isTrue();
        assertThat(result).isNotDone();
        // another call on the same thread is another owner: it waits, and here times out
        CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> orders.later("a", CompletableFuture.completedFuture("2")).join());
        work.complete("done");
        assertThat(result.join()).isEqualTo("done");
        assertThat(second.join()).isEqualTo("2");
        await().untilAsserted(() -> assertThat(lock.isLocked()).isFalse());

        CompletableFuture<String> failing = new CompletableFuture<>();
        CompletableFuture<String> failed = orders.later("b", failing);
        failing.completeExceptionally(new IllegalStateException("async failure"));
        assertThatThrownBy(failed::join).hasRootCauseMessage("async failure");
        assertThat(other.getLock("async:b").isLocked()).isFalse();
    }

    @Test
    void lockedMethodsRunOnVirtualThreads() throws Exception {
        ExecutorService virtual;
        try {
            virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException beforeJava21) {
            assumeTrue(false, "virtual threads need Java 21");
            return;
        }
        try (ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri())) {
            OrderService service = context.getBean(OrderService.class);
            int before = OrderService.counted;
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 20; t++) {
                runs.add(virtual.submit(() -> {
                    for (int i = 0; i < 5; i++) {
                        service.count();
                    }
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
            assertThat(OrderService.counted - before).isEqualTo(100);
            assertThat(OrderService.MOST_INSIDE).hasValue(1);
        } finally {
            virtual.shutdown();
        }
    }

    @Test
    void metersAppearAndCount() {
        MeterRegistry registry = app.getBean(MeterRegistry.class);
        double acquiredBefore = acquireCount(registry, "acquired");
        orders.ship(new OrderService.Order(1));
        orders.ship(new OrderService.Order(2));
        // An acquisition's end is told on the thread that completes it, which may be after the
        // caller went on: the meters are awaited, not read at once.
        await().untilAsserted(() -> assertThat(acquireCount(registry, "acquired") - acquiredBefore).isEqualTo(2));
        assertThat(registry.get("latchkey.lock.waiting").tag("kind", "plain").gauge().value()).isZero();
        LongTaskTimer held = registry.get("latchkey.lock.held").tag("kind", "plain").longTaskTimer();
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> pending = orders.later("meters", work);
        await().untilAsserted(() -> assertThat(held.activeTasks()).isEqualTo(1));
        work.complete("x");
        pending.join();
        await().untilAsserted(() -> assertThat(held.activeTasks()).isZero());
        assertThat(registry.find("latchkey.lock.acquire").tags("name", "orders:1").timer()).isNull(); // no name tags by default
        System.out.println(dump(registry));
    }

    @Test
    void theHealthContributorShowsTheRedisConnection() {
        HealthIndicator health = app.getBean("latchkeyHealthIndicator", HealthIndicator.class);
        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
        assertThat(health.health(true).getDetails()).containsEntry("redis", redis.uri());
    }

    @Test
    void theClientIsClosedWithTheContext() {
        ConfigurableApplicationContext context = TestApplication.run("latchkey.address=" + redis.uri());
        LockClient client = context.getBean(LockClient.class);
        assertThat(client.getLock("spring:closing").isLocked()).isFalse();
        context.close();
        assertThatThrownBy(() -> client.getLock("spring:closing").isLocked()).isInstanceOf(RuntimeException.class);
    }

    private static double acquireCount(MeterRegistry registry, String outcome) {
        Timer timer = registry.find("latchkey.lock.acquire").tags("kind", "plain", "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    /** The registry as {@code /actuator/metrics} would list it, with each meter's measurements. */
    static String dump(MeterRegistry registry) {
        return registry.getMeters().stream().filter(meter -> meter.getId().getName().startsWith("latchkey"))
                .sorted(java.util.Comparator.comparing((Meter meter) -> meter.getId().getName()).thenComparing(meter -> meter.getId().getTags().toString()))
                .map(meter -> meter.getId().getName() + ' ' + meter.getId().getTags().stream()
                        .map(tag -> tag.getKey() + '=' + tag.getValue()).collect(Collectors.joining(",", "{", "}"))
                        + ' ' + meter.getId().getType() + ' ' + java.util.stream.StreamSupport.stream(meter.measure().spliterator(), false)
                        .map(m -> m.getStatistic().getTagValueRepresentation() + '=' + m.getValue()).collect(Collectors.joining(" ")))
                .collect(Collectors.joining("\n", "---- latchkey meters ----\n", "\n----"));
    }
}
