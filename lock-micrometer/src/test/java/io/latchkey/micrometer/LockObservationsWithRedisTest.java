package io.latchkey.micrometer;

import static io.latchkey.micrometer.RecordingHandler.low;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a real client tells the listener, and on which threads, against a real redis-server. */
class LockObservationsWithRedisTest {

    private static RedisServer redis;

    private final ObservationRegistry registry = ObservationRegistry.create();
    private final RecordingHandler handler = new RecordingHandler();
    private final LockObservations observations = LockObservations.of(registry);

    LockObservationsWithRedisTest() {
        registry.observationConfig().observationHandler(handler);
    }

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aLockCallInsideARequestMakesTheRequestTheParentOfTheAcquisitionAndOfTheHold() throws Exception {
        try (LockClient client = client()) {
            DistributedLock lock = client.getLock("parent-" + System.nanoTime());
            Observation request = Observation.start("http.server.requests", registry);
            request.scoped(() -> {
                lock.lock();
                lock.lock(); // a re-entry: a second acquisition, the same hold
                lock.unlock();
                lock.unlock();
            });
            request.stop();
            await().untilAsserted(() -> assertThat(handler.stopped(DefaultLockHoldConvention.NAME)).hasSize(1));
            assertThat(handler.stopped(DefaultLockAcquireConvention.NAME)).hasSize(2).allSatisfy(context -> {
                assertThat(context.getParentObservation()).isSameAs(request);
                assertThat(low(context)).containsEntry("kind", "plain").containsEntry("outcome", "acquired");
            });
            assertThat(handler.stopped(DefaultLockHoldConvention.NAME).get(0).getParentObservation()).isSameAs(request);
            assertThat(low(handler.stopped(DefaultLockHoldConvention.NAME).get(0))).containsEntry("outcome", "released");
            assertThat(observations.open()).isZero();
        }
    }

    @Test
    void closingTheClientEndsTheWaitsAndTheHoldsItHadSoNothingStaysOpen() {
        String name = "close-" + System.nanoTime();
        LockClient client = client();
        DistributedLock lock = client.getLock(name);
        lock.lockAsync(1L).join();
        CompletableFuture<Boolean> waiting = lock.tryLockAsync(Duration.ofMinutes(5), Duration.ofSeconds(30), 2L);
        await().until(() -> handler.started(DefaultLockAcquireConvention.NAME).size() == 2);
        assertThat(observations.open()).isEqualTo(2); // the waiting acquisition and the hold

        client.close();

        await().untilAsserted(() -> assertThat(observations.open()).isZero());
        assertThat(waiting).isCompletedExceptionally();
        assertThat(handler.stopped(DefaultLockHoldConvention.NAME)).singleElement()
                .satisfies(context -> assertThat(low(context)).containsEntry("outcome", "lost"));
        assertThat(handler.stopped(DefaultLockAcquireConvention.NAME)).extracting(context -> low(context).get("outcome"))
                .containsExactlyInAnyOrder("acquired", "failed");
    }

    private LockClient client() {
        return LockClient.create(LockConfig.builder().address(redis.uri()).eventListener(observations).build());
    }
}
