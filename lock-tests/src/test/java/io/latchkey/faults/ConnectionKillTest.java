package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two clients' threads contend for a few locks while every client connection is killed
 * ({@code CLIENT KILL TYPE normal}) again and again: acquires and releases fail with their answer
 * lost, or are rejected while the connection is down. Every lock must keep being acquired, during
 * the faults and after them, and nothing may be left in Redis at the end. Before the fix, an
 * unlock that failed left its hold in Redis and the watchdog renewed it for the life of the
 * client, and the owner's next lock() took that stale grant for a re-entry: some lock was then
 * held for ever and the contenders after the faults starved.
 */
class ConnectionKillTest {

    private static final int CLIENTS = 2;
    private static final int THREADS_PER_CLIENT = 3;
    private static final int LOCKS = 3;
    private static final Duration FAULTS = Duration.ofSeconds(5);
    private static final Duration WATCHDOG = Duration.ofSeconds(2);
    private static final int ROUNDS_AFTER = 5;

    private static RedisServer server;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("plain", (BiFunction<LockClient, String, DistributedLock>) LockClient::getLock),
                Arguments.of("fair", (BiFunction<LockClient, String, DistributedLock>) LockClient::getFairLock));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void everyLockKeepsBeingAcquiredWhileConnectionsAreKilled(String kind,
            BiFunction<LockClient, String, DistributedLock> lockOf) throws Exception {
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        AtomicBoolean faulting = new AtomicBoolean(true);
        AtomicLongArray acquisitionsAfter = new AtomicLongArray(LOCKS);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(LockClient.create(LockConfig.builder().address(server.uri())
                        .watchdogTimeout(WATCHDOG).commandTimeout(Duration.ofMillis(500)).build()));
            }
            List<CompletableFuture<Void>> contenders = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    int index = (c * THREADS_PER_CLIENT + t) % LOCKS;
                    DistributedLock lock = lockOf.apply(clients.get(c), kind + "-killed-" + index);
                    contenders.add(CompletableFuture.runAsync(
                            () -> contend(lock, faulting, acquisitionsAfter, index), threads));
                }
            }
            long end = System.nanoTime() + FAULTS.toNanos();
            int kills = 0;
            while (System.nanoTime() - end < 0) {
                server.command("CLIENT", "KILL", "TYPE", "normal");
                kills++;
                // The fault's own rhythm, not a wait for state: a kill every 150 ms.
                Thread.sleep(150);
            }
            faulting.set(false);

            // After the faults every contender gets its rounds, within a few leases at most.
            CompletableFuture.allOf(contenders.toArray(CompletableFuture[]::new))
                    .get(WATCHDOG.toSeconds() * 10 + 20, TimeUnit.SECONDS);
            assertThat(kills).isGreaterThan(10);
            for (int index = 0; index < LOCKS; index++) {
                assertThat(acquisitionsAfter.get(index)).as("acquisitions of lock %d after the faults", index)
                        .isEqualTo((long) ROUNDS_AFTER * CLIENTS * THREADS_PER_CLIENT / LOCKS);
            }
        } finally {
            faulting.set(false);
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
        // Only the per-slot fencing counters stay, by design: they must outlive every lock key.
        assertThat((List<?>) server.command("KEYS", "*")).as("nothing but fencing counters is left in Redis")
                .allSatisfy(key -> assertThat(key.toString()).startsWith("latchkey:fence:{"));
    }

    /** Locks and unlocks in a loop as an application would, carrying on after a LockException or a lost lease. */
    private static void contend(DistributedLock lock, AtomicBoolean faulting, AtomicLongArray after, int index) {
        int rounds = 0;
        while (faulting.get() || rounds < ROUNDS_AFTER) {
            boolean counted = !faulting.get();
            try {
                lock.lock();
            } catch (LockException redisFailed) {
                continue;
            }
            try {
                if (counted) {
                    after.incrementAndGet(index);
                    rounds++;
                }
            } finally {
                try {
                    lock.unlock();
                } catch (LockException releaseLost) {
                    // As the README says: nothing to do, the library completes the release.
                } catch (LeaseLostException leaseRanOut) {
                    // The release could not reach Redis before the lease as last confirmed ran
                    // out: the hold is over, as API.md says, and the library ends it in Redis.
                }
            }
        }
    }
}
