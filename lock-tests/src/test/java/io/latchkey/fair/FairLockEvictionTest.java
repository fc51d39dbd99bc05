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
import java.util.Map;
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
    /** How long after a dead waiter's place ran out a live one behind it may come to evict it: a round trip and timer slack. */
    private static final long LATE = 800;

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

    /**
     * A holder and the two waiters first in line, each in a process of its own, killed together
     * (issue 28 item 5): the live waiter behind them gets the lock as soon as the later of the dead
     * waiters' places runs out, so the lock stays free no longer than {@code fairLockWaitTimeout}
     * after their last tries, and no longer than the longer of the lease and
     * {@code fairLockWaitTimeout} after the kill. The kill is timed for the worst case of the
     * cadence that once missed it (a waiter behind the second tried only every half place): the
     * live waiter's last try before the dead ones' deadlines falls just before them.
     */
    @Test
    void aKilledHolderAndTwoKilledWaitersInLineHoldUpTheNextLiveWaiterOnlyUntilTheirPlacesRunOut() throws Exception {
        assertAKilledHolderAndTwoKilledWaitersCostAtMostTheLongerOf(Duration.ofSeconds(1), Duration.ofSeconds(4));
    }

    /** The same with the lease the longer: the dead waiters' places run out while it does, and add nothing to it. */
    @Test
    void aKilledHolderAndTwoKilledWaitersInLineCostNoMoreThanTheHoldersLeaseWhenItIsTheLonger() throws Exception {
        assertAKilledHolderAndTwoKilledWaitersCostAtMostTheLongerOf(Duration.ofSeconds(5), Duration.ofSeconds(2));
    }

    private void assertAKilledHolderAndTwoKilledWaitersCostAtMostTheLongerOf(Duration lease, Duration place)
            throws Exception {
        String[] settings = {"watchdogTimeout=" + lease.toMillis(), "fairLockWaitTimeout=" + place.toMillis()};
        DistributedLock next = newClient(place).getFairLock(name);
        long nextOwner = ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
        List<Process> killed = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                outputs.add(Files.createTempFile("latchkey-fair-crash-", ".log"));
                Process process = start(i == 0 ? FairHolderMain.class : FairWaiterMain.class, outputs.get(i), settings);
                killed.add(process);
                int inLine = i;
                within(Duration.ofSeconds(60)).until(() -> !process.isAlive()
                        || (raw.commands().exists(name) == 1 && raw.queue(name).size() == inLine));
                assertTrue(process.isAlive(), () -> "process " + inLine + " died: " + output(outputs.get(inLine)));
            }
            List<String> dead = raw.queue(name);
            CompletableFuture<Void> nextLocked = next.lockAsync(nextOwner);
            within(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 3);
            String nextField = raw.queue(name).get(2);

            long halfPlace = place.toMillis() / 2;
            within(Duration.ofSeconds(30)).until(() -> {
                Map<String, Long> deadlines = raw.timeouts(name);
                long placesEnd = Math.max(deadlines.get(dead.get(0)), deadlines.get(dead.get(1)));
                long lastTry = deadlines.get(nextField) - place.toMillis();
                return Math.floorMod(placesEnd - lastTry, halfPlace) < halfPlace / 4;
            });
            long killedAt = System.nanoTime();
            killed.forEach(Process::destroyForcibly); // SIGKILL: no unlock, no abandon, no more tries
            for (Process process : killed) {
                assertTrue(process.waitFor(10, TimeUnit.SECONDS), "a process did not die");
            }
            Map<String, Long> deadlines = raw.timeouts(name);
            long leaseEnds = raw.redisNowMillis() + Math.max(0, raw.commands().pttl(name));
            long placesEnd = Math.max(deadlines.get(dead.get(0)), deadlines.get(dead.get(1)));

            Duration bound = lease.compareTo(place) > 0 ? lease : place;
            nextLocked.get(bound.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
            long late = raw.redisNowMillis() - Math.max(placesEnd, leaseEnds);
            long idle = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            assertTrue(late < LATE, "the live waiter got the lock " + late
                    + " ms after the dead waiters' places and the dead holder's lease ran out");
            assertTrue(idle < bound.plus(MARGIN).toMillis(), "the live waiter got the lock " + idle + " ms after the kill");
            assertTrue(next.isHeldBy(nextOwner));
            assertEquals(List.of(), raw.queue(name), "both dead waiters were evicted");

            next.unlockAsync(nextOwner).get(5, TimeUnit.SECONDS);
            assertEquals(List.of(), raw.keysOf(name), "nothing is left once idle");
        } finally {
            for (Process process : killed) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            for (Path file : outputs) {
                Files.deleteIfExists(file);
            }
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
        return start(FairWaiterMain.class, output, settings);
    }

    private Process start(Class<?> main, Path output, String... settings) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                main.getName(),
                redis.uri(), name));
        command.addAll(List.of(settings));
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
