package io.latchkey.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The eviction rule: a waiter that stops trying for {@code fairLockWaitTimeout} (its process
 * died) loses its place, so it cannot block the queue; a live waiter keeps its place however
 * long it waits, because each of its tries pushes its deadline back. Unless set, that timeout is
 * the waiter's watchdog timeout.
 */
class FairLockEvictionTest {

    private static final Duration FAIR_WAIT = Duration.ofSeconds(1);
    private static final Duration MARGIN = Duration.ofMillis(1500);
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    private static RedisServer redis;
    private static FairLockRedis raw;

    private final List<LockClient> clients = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        raw = new FairLockRedis(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (raw != null) {
            raw.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void nameTheLock() {
        name = "latchkey-test:fair-eviction:" + UUID.randomUUID();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    @Test
    void aKilledWaiterIsEvictedAndTheNextGetsTheLockWithinFairLockWaitTimeoutOfTheRelease() throws Exception {
        assertAKilledWaiterIsEvictedWithin(FAIR_WAIT, "fairLockWaitTimeout=" + FAIR_WAIT.toMillis());
    }

    @Test
    void aKilledWaiterWithTheDefaultFairLockWaitTimeoutIsEvictedWithinItsWatchdogTimeout() throws Exception {
        // The waiter sets a short watchdog timeout and leaves fairLockWaitTimeout alone: its
        // place lasts one lease, so its crash costs the queue what a crashed holder costs.
        Duration watchdog = Duration.ofSeconds(1);
        assertAKilledWaiterIsEvictedWithin(watchdog, "watchdogTimeout=" + watchdog.toMillis());
    }

    /**
     * A waiter in a process of its own, with {@code childSettings}, is first in line; alive, it
     * keeps its place for twice {@code place}; killed, it is evicted and the next waiter gets the
     * lock within {@code place} (plus a margin) of the holder's release.
     */
    private void assertAKilledWaiterIsEvictedWithin(Duration place, String childSettings) throws Exception {
        DistributedLock held = newClient().getFairLock(name);
        DistributedLock next = newClient().getFairLock(name);
        long nextOwner = ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
        Path childOutput = Files.createTempFile("latchkey-fair-waiter-", ".log");
        held.lock();
        Process child = startWaiter(childOutput, childSettings);
        try {
            within(Duration.ofSeconds(30)).until(() -> raw.queue(name).size() == 1 || !child.isAlive());
            assertTrue(child.isAlive(), () -> "the child waiter died: " + output(childOutput));
            String childField = raw.queue(name).get(0);
            CompletableFuture<Void> nextLocked = next.lockAsync(nextOwner);
            within(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 2);

            // Alive, the child keeps its place well past its fairLockWaitTimeout.
            assertHoldsFor(place.multipliedBy(2), "the live child keeps the first place",
                    () -> raw.queue(name).get(0).equals(childField) && !nextLocked.isDone());

            child.destroyForcibly(); // SIGKILL: no unlock, no abandon, no more tries
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), "the child did not die");
            long releasedAt = System.nanoTime();
            held.unlock();

            nextLocked.get(place.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt);
            assertTrue(waited < place.plus(MARGIN).toMillis(), "the next waiter got the lock " + waited + " ms after the release");
            assertTrue(next.isHeldBy(nextOwner));
            assertFalse(raw.queue(name).contains(childField), "the dead waiter was evicted from the queue");
            assertFalse(raw.timeouts(name).containsKey(childField), "and from the timeouts");

            next.unlockAsync(nextOwner).get(5, TimeUnit.SECONDS);
            assertEquals(List.of(), raw.keysOf(name), "nothing is left once idle");
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(childOutput);
        }
    }

    @Test
    void liveWaitersKeepTheirPlacesLongPastFairLockWaitTimeout() throws Exception {
        Duration shortPlace = Duration.ofSeconds(1);
        DistributedLock held = newClient().getFairLock(name);
        List<Long> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();

        held.lock();
        for (int i = 0; i < 3; i++) {
            LockClient client = newClient(shortPlace);
            DistributedLock lock = client.getFairLock(name);
            long owner = i;
            done.add(lock.lockAsync(owner).thenCompose(locked -> {
                order.add(owner);
                return lock.unlockAsync(owner);
            }));
            int inLine = i + 1;
            within(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == inLine);
        }
        List<String> line = raw.queue(name);
        assertHoldsFor(shortPlace.multipliedBy(3), "every waiter keeps its place", () -> raw.queue(name).equals(line));

        held.unlock();
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(0L, 1L, 2L), order);
        assertEquals(List.of(), raw.keysOf(name));
    }

    private LockClient newClient() {
        return newClient(FAIR_WAIT);
    }

    private LockClient newClient(Duration fairLockWaitTimeout) {
        LockClient client = LockClient.create(LockConfig.builder().address(redis.uri())
                .watchdogTimeout(LONG_LEASE).commandTimeout(Duration.ofSeconds(1))
                .fairLockWaitTimeout(fairLockWaitTimeout).build());
        clients.add(client);
        return client;
    }

    private Process startWaiter(Path output, String settings) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = List.of(java.toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                FairWaiterMain.class.getName(),
                redis.uri(), name, settings);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    private static String output(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread();
    }

    private static void assertHoldsFor(Duration period, String what, java.util.concurrent.Callable<Boolean> condition) {
        await(what).during(period).atMost(period.plusMillis(500))
                .pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread()
                .until(condition);
    }
}
