package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** A demo-like run (contention, a timeout, a renewed hold) and the meters it leaves, printed. */
class MetersDemoTest {

    @Test
    void aDemoLikeRunMovesEveryMeter() throws Exception {
        try (RedisServer redis = RedisServer.start();
             LockClient other = LockClient.create(redis.uri());
             ConfigurableApplicationContext app = TestApplication.run("latchkey.address=" + redis.uri(),
                     "latchkey.watchdog-timeout=600ms")) {
            OrderService orders = app.getBean(OrderService.class);
            ExecutorService threads = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    runs.add(threads.submit(() -> {
                        for (int i = 0; i < 25; i++) {
                            orders.count();
                        }
                    }));
                }
                for (Future<?> run : runs) {
                    run.get();
                }
            } finally {
                threads.shutdown();
            }
            other.getLock("busy").lockAsync(99L).join();
            assertThatThrownBy(orders::busy).isInstanceOf(LockNotAcquiredException.class);
            other.getLock("busy").unlockAsync(99L).join();

            MeterRegistry registry = app.getBean(MeterRegistry.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> held = orders.later("long", work);
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    registry.get("latchkey.lease.renewal").tag("outcome", "renewed").timer().count() >= 2);
            System.out.println(LatchkeyStarterTest.dump(registry)); // the hold still runs: one active task
            work.complete("done");
            held.join();

            assertThat(registry.get("latchkey.lock.acquire").tags("kind", "plain", "outcome", "acquired").timer().count())
                    .isGreaterThanOrEqualTo(101);
            assertThat(registry.get("latchkey.lock.acquire").tags("outcome", "timed_out").timer().count()).isEqualTo(1);
            assertThat(registry.get("latchkey.lock.held").longTaskTimer().activeTasks()).isZero();
        }
    }
}
