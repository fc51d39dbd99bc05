package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@code @Locked} on WebFlux endpoints returning {@code Mono} and {@code Flux}, against a real
 * Redis: the lock is held from subscription to completion, error or cancel, and no Reactor
 * thread waits for it.
 */
class ReactiveLockedTest {

    private static RedisServer redis;
    private static ConfigurableApplicationContext app;
    private static Reports reports;
    private static WebClient web;
    private static LockClient other;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        app = new SpringApplicationBuilder(TestApplication.class, Web.class).web(WebApplicationType.REACTIVE)
                .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .properties("latchkey.address=" + redis.uri(), "server.port=0").run();
        reports = app.getBean(Reports.class);
        web = WebClient.create("http://127.0.0.1:" + app.getBean(Environment.class).getProperty("local.server.port"));
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
    void concurrentRequestsAreNeverInsideTogether() {
        int requests = 12;
        int before = Reports.counted; // other tests count too
        List<String> answers = Flux.range(0, requests)
                .flatMap(i -> web.get().uri("/report").retrieve().bodyToMono(String.class), requests)
                .collectList().block(Duration.ofSeconds(30));
        assertThat(answers).hasSize(requests).containsOnly("report");
        assertThat(Reports.mostInside).hasValue(1);
        assertThat(Reports.counted - before).isEqualTo(requests);
        assertThat(other.getLock("web:report").isLocked()).as("released before the response completed").isFalse();
    }

    @Test
    void aFluxHoldsTheLockUntilItCompletes() {
        List<String> lines = web.get().uri("/lines").retrieve().bodyToFlux(String.class).collectList().block(Duration.ofSeconds(10));
        assertThat(String.join("", lines)).isEqualTo("onetwothree");
        assertThat(Reports.heldWhileStreaming).as("held on every item").containsOnly(true).hasSize(3);
        assertThat(other.getLock("web:lines").isLocked()).isFalse();
    }

    @Test
    void anErrorReleasesTheLock() {
        assertThatThrownBy(() -> web.get().uri("/failing").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)))
                .isInstanceOf(WebClientResponseException.class)
                .satisfies(e -> assertThat(((WebClientResponseException) e).getStatusCode()).isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR));
        assertThatThrownBy(() -> reports.failing().block(Duration.ofSeconds(10))).isInstanceOf(IllegalStateException.class)
                .hasMessage("the report failed");
        assertThat(other.getLock("web:failing").isLocked()).isFalse();
    }

    @Test
    void aCancelReleasesTheLock() {
        Disposable subscription = reports.endless().subscribe();
        DistributedLock lock = other.getLock("web:endless");
        await().atMost(Duration.ofSeconds(5)).until(lock::isLocked);
        subscription.dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
    }

    @Test
    void aCancelWhileWaitingTakesNothingLater() throws Exception {
        DistributedLock held = other.getLock("web:waited");
        held.lockAsync(99L).get(5, TimeUnit.SECONDS);
        int runsBefore = Reports.waitedRuns.get();
        Disposable subscription = reports.waited().subscribe();
        try {
            // The subscription waits for the lock (up to 5 s); its cancel must end that wait.
            await().pollDelay(Duration.ofMillis(200)).until(() -> true);
            subscription.dispose();
        } finally {
            held.unlockAsync(99L).get(5, TimeUnit.SECONDS);
        }
        // An acquisition left running would take the lock now and keep it, renewed for ever.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !held.isLocked());
        assertThat(Reports.waitedRuns).hasValue(runsBefore);
    }

    @Test
    void aTimeoutFailsTheMonoOrLeavesItEmpty() throws Exception {
        DistributedLock held = other.getLock("web:busy");
        held.lockAsync(99L).get(5, TimeUnit.SECONDS);
        try {
            assertThatThrownBy(() -> reports.busyOrThrow().block(Duration.ofSeconds(5))).isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("'web:busy'");
            assertThat(reports.busyOrSkip().block(Duration.ofSeconds(5))).isNull();
            assertThat(reports.busyLinesOrSkip().collectList().block(Duration.ofSeconds(5))).isEmpty();
        } finally {
            held.unlockAsync(99L).get(5, TimeUnit.SECONDS);
        }
        assertThat(Reports.busyRuns).hasValue(0);
    }

    @Test
    void theWaitDoesNotHoldTheSubscribingThread() throws Exception {
        DistributedLock held = other.getLock("web:waited");
        held.lockAsync(99L).get(5, TimeUnit.SECONDS);
        Scheduler single = Schedulers.newSingle("one-reactor-thread");
        try {
            CompletableFuture<String> result = reports.waited().subscribeOn(single).toFuture();
            // The scheduler's one thread subscribed and must be free again while the lock is awaited.
            CountDownLatch ranMeanwhile = new CountDownLatch(1);
            single.schedule(ranMeanwhile::countDown);
            assertThat(ranMeanwhile.await(2, TimeUnit.SECONDS)).isTrue();
            assertThat(result).isNotDone();
            held.unlockAsync(99L).get(5, TimeUnit.SECONDS);
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("waited");
        } finally {
            single.dispose();
            if (held.isHeldBy(99L)) {
                held.unlockAsync(99L).get(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void eachSubscriptionTakesTheLockAgain() {
        Mono<String> report = reports.report();
        assertThat(IntStream.range(0, 3).mapToObj(i -> report.block(Duration.ofSeconds(5)))).containsOnly("report");
        assertThat(other.getLock("web:report").isLocked()).isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    static class Web {

        @Bean
        Reports reports() {
            return new Reports();
        }
    }

    /** Reactive endpoints, as an application writes them. */
    @RestController
    public static class Reports {

        static final AtomicInteger inside = new AtomicInteger();
        static final AtomicInteger mostInside = new AtomicInteger();
        /** Incremented unguarded: only the lock keeps increments from being lost. */
        static int counted;
        static final List<Boolean> heldWhileStreaming = new java.util.concurrent.CopyOnWriteArrayList<>();
        static final AtomicInteger waitedRuns = new AtomicInteger();
        static final AtomicInteger busyRuns = new AtomicInteger();

        @GetMapping("/report")
        @Locked(name = "web:report", waitTime = "10s")
        public Mono<String> report() {
            return Mono.defer(() -> {
                mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                int seen = counted;
                return Mono.delay(Duration.ofMillis(10)).map(tick -> {
                    counted = seen + 1;
                    return "report";
                });
            }).doOnTerminate(inside::decrementAndGet);
        }

        @GetMapping("/lines")
        @Locked(name = "web:lines")
        public Flux<String> lines() {
            return Flux.just("one", "two", "three").delayElements(Duration.ofMillis(10))
                    .doOnNext(line -> heldWhileStreaming.add(other.getLock("web:lines").isLocked()));
        }

        @GetMapping("/failing")
        @Locked(name = "web:failing")
        public Mono<String> failing() {
            return Mono.error(new IllegalStateException("the report failed"));
        }

        @Locked(name = "web:endless")
        public Flux<Long> endless() {
            return Flux.interval(Duration.ofMillis(10));
        }

        @Locked(name = "web:waited", waitTime = "5s")
        public Mono<String> waited() {
            return Mono.fromSupplier(() -> {
                waitedRuns.incrementAndGet();
                return "waited";
            });
        }

        @Locked(name = "web:busy", waitTime = "200ms")
        public Mono<String> busyOrThrow() {
            busyRuns.incrementAndGet();
            return Mono.just("ran");
        }

        @Locked(name = "web:busy", waitTime = "200ms", onTimeout = Locked.OnTimeout.SKIP)
        public Mono<String> busyOrSkip() {
            busyRuns.incrementAndGet();
            return Mono.just("ran");
        }

        @Locked(name = "web:busy", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP)
        public Flux<String> busyLinesOrSkip() {
            busyRuns.incrementAndGet();
            return Flux.just("ran");
        }
    }
}
