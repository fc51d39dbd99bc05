package io.latchkey.topology;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.TimingBound;
import io.latchkey.testing.RedisSentinelGroup;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Sentinel group (master, one replica, three Sentinels) loses its master while one lock is
 * held and awaited and another, also awaited, was never replicated: the client follows the
 * failover to the promoted replica, its waiters re-subscribe and re-check, the lock that the new
 * master never saw is reported as a lost lease by the watchdog (and taken by its waiter), the
 * lock that survived is handed over by its unlock message, and fresh locks are acquirable.
 */
@TimingBound
class SentinelFailoverTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    /** Renewed every second, so the lost hold is noticed soon after the failover. */
    private static final Duration SHORT_LEASE = Duration.ofSeconds(3);
    private static final Duration RETRY_BACKOFF = Duration.ofMillis(100);

    private static RedisSentinelGroup group;

    private final List<LockClient> clients = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final OverlapDetector detector = new OverlapDetector();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void startGroup() {
        // A writable replica lets the test drop a key on it, as if that write never replicated.
        group = RedisSentinelGroup.start(1, 3, "--replica-read-only", "no");
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        clients.forEach(LockClient::close);
        threads.shutdownNow();
        threads.awaitTermination(5, TimeUnit.SECONDS);
    }

    private LockClient newClient(Duration lease) {
        LockClient client = LockClient.create(LockConfig.builder()
                .address(group.uri())
                .watchdogTimeout(lease)
                .commandTimeout(Duration.ofSeconds(1))
                .build());
        clients.add(client);
        return client;
    }

    @Test
    void theClientFollowsAFailoverWakesItsWaitersAndReportsTheHoldTheFailoverLost() throws Exception {
        String kept = "latchkey-test:sentinel:kept:" + UUID.randomUUID();
        String lost = "latchkey-test:sentinel:lost:" + UUID.randomUUID();
        RedisServer master = group.master();
        RedisServer replica = group.dataNodes().stream().filter(node -> node != master).findFirst().orElseThrow();
        DistributedLock keptByHolder = newClient(LONG_LEASE).getLock(kept);
        DistributedLock lostByHolder = newClient(SHORT_LEASE).getLock(lost);
        LockClient waiters = newClient(LONG_LEASE);

        try (CapturedLog log = new CapturedLog()) {
            keptByHolder.lockAsync(1).get(5, TimeUnit.SECONDS);
            detector.enter(kept);
            lostByHolder.lockAsync(2).get(5, TimeUnit.SECONDS);

            Map<String, Long> acquiredAt = new ConcurrentHashMap<>();
            CountDownLatch release = new CountDownLatch(1);
            List<CompletableFuture<Void>> waiterThreads = new ArrayList<>();
            for (String name : List.of(kept, lost)) {
                waiterThreads.add(CompletableFuture.runAsync(() -> {
                    DistributedLock lock = waiters.getLock(name);
                    if (!lockRetrying(lock)) {
                        return;
                    }
                    acquiredAt.put(name, System.nanoTime());
                    if (name.equals(kept)) {
                        detector.enter(name);
                    }
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (name.equals(kept)) {
                        detector.exit(name);
                    }
                    lock.unlock();
                }, threads));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(master, kept) == 1 && subscribers(master, lost) == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> master.info("replication", "master_repl_offset")
                    .equals(replica.info("replication", "slave_repl_offset")));
            // As if the write of this hold had not reached the replica before the crash.
            assertEquals(1L, replica.command("DEL", lost));

            master.kill();
            RedisServer promoted = group.awaitFailover(master, Duration.ofSeconds(30));
            assertNotSame(master, promoted);

            // The hold the new master never saw: the watchdog reports it, its waiter gets the lock.
            await().atMost(Duration.ofSeconds(20)).until(() -> log.hasLine("Lease of lock '" + lost + "'", "was lost"));
            assertFalse(isHeldBy(lostByHolder, 2), "the holder no longer holds the lost lock");
            await().atMost(Duration.ofSeconds(20)).until(() -> acquiredAt.containsKey(lost));

            // The hold that survived: handed over by its unlock message on the new master.
            assertFalse(acquiredAt.containsKey(kept), "the kept lock is still held by its holder");
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(promoted, kept) == 1);
            detector.exit(kept);
            unlockOnce(keptByHolder, 1);
            long released = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).until(() -> acquiredAt.containsKey(kept));
            long wokenAfterMillis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(kept) - released);
            assertTrue(wokenAfterMillis < 5000, "the waiter took " + wokenAfterMillis
                    + " ms after the unlock; only the unlock message can wake it this soon");

            release.countDown();
            CompletableFuture.allOf(waiterThreads.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertTrue(failures.isEmpty(), "waiters failed: " + failures);
            assertEquals(0, detector.overlaps(), "two holders of the kept lock at once");
        }

        DistributedLock fresh = newClient(LONG_LEASE).getLock("latchkey-test:sentinel:fresh:" + UUID.randomUUID());
        assertTrue(fresh.tryLockAsync(Duration.ofSeconds(5), LONG_LEASE, 7).get(10, TimeUnit.SECONDS),
                "a new client locks on the new master");
        fresh.unlockAsync(7).get(5, TimeUnit.SECONDS);
    }

    private static long subscribers(RedisServer node, String name) {
        String channel = "latchkey:{" + name + "}:channel";
        return (Long) ((List<?>) node.command("PUBSUB", "NUMSUB", channel)).get(1);
    }

    private static boolean isHeldBy(DistributedLock lock, long owner) {
        while (true) {
            try {
                return lock.isHeldBy(owner);
            } catch (LockException stillReconnecting) {
                LockSupport.parkNanos(RETRY_BACKOFF.toNanos());
            }
        }
    }

    /** What an application does while Redis fails over: try again after a LockException. */
    private boolean lockRetrying(DistributedLock lock) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                lock.lock();
                return true;
            } catch (LockException unavailable) {
                LockSupport.parkNanos(RETRY_BACKOFF.toNanos());
            } catch (RuntimeException e) {
                failures.add(e);
                return false;
            }
        }
        return false;
    }

    /**
     * What an application does while Redis fails over, as the README says: unlock once; an unlock
     * whose answer was lost ("need not retry") is completed by the library as soon as Redis
     * answers again, and a second unlock would find the hold gone (it once failed so with
     * {@code IllegalMonitorStateException}, when the settling came first).
     */
    private static void unlockOnce(DistributedLock lock, long owner) throws Exception {
        try {
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof LockException deferred) || !deferred.getMessage().contains("need not retry")) {
                throw e;
            }
        }
    }
}
