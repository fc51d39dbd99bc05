package io.latchkey.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two hundred threads on one fair lock, half on each of two clients (as two JVMs would be), every
 * blocking acquire flavour among them: all of them finish, the overlap detector never sees two
 * holders, an unguarded counter counts every hold, and nothing is left in Redis afterwards.
 */
class FairLockContentionTest {

    private static final int CLIENTS = 2;
    private static final int THREADS = 200;
    private static final int ACQUISITIONS_PER_THREAD = 3;

    private static RedisServer redis;
    private static FairLockRedis raw;

    /** How many threads are inside the critical section right now. */
    private final AtomicInteger inside = new AtomicInteger();
    /** Times a thread entered while another was inside. */
    private final AtomicInteger overlaps = new AtomicInteger();
    /** Updated by read, yield, write: a lost update means two holders overlapped. */
    private volatile int counter;
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

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

    /** A blocking acquire flavour; each thread uses one. */
    @FunctionalInterface
    private interface Acquire {
        void acquire(DistributedLock lock) throws Exception;
    }

    private static final List<Acquire> FLAVOURS = List.of(
            DistributedLock::lock,
            DistributedLock::lockInterruptibly,
            lock -> {
                if (!lock.tryLock(Duration.ofSeconds(150))) {
                    throw new AssertionError("tryLock(150 s) gave up");
                }
            },
            lock -> lock.lock(Duration.ofSeconds(30)));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twoHundredThreadsAllFinishAndNeverOverlap() throws Exception {
        String name = "latchkey-test:fair-contention:" + UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(LockClient.create(LockConfig.builder().address(redis.uri())
                        .watchdogTimeout(Duration.ofSeconds(30)).commandTimeout(Duration.ofSeconds(5)).build()));
            }
            for (int t = 0; t < THREADS; t++) {
                DistributedLock lock = clients.get(t % CLIENTS).getFairLock(name);
                Acquire flavour = FLAVOURS.get(t % FLAVOURS.size());
                threads.execute(() -> contend(lock, flavour, start));
            }
            start.countDown();
            threads.shutdown();
            assertTrue(threads.awaitTermination(150, TimeUnit.SECONDS), "the contenders did not finish");

            assertTrue(failures.isEmpty(), "contenders failed: " + failures);
            assertEquals(0, overlaps.get(), "times two holders were inside at once");
            assertEquals(THREADS * ACQUISITIONS_PER_THREAD, counter, "holds counted by the unguarded counter");
            assertEquals(List.of(), raw.keysOf(name), "nothing is left in Redis once idle");
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
    }

    private void contend(DistributedLock lock, Acquire acquire, CountDownLatch start) {
        try {
            start.await();
            for (int i = 0; i < ACQUISITIONS_PER_THREAD; i++) {
                acquire.acquire(lock);
                try {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    int seen = counter;
                    Thread.yield(); // widen the window in which an overlapping holder would lose an update
                    counter = seen + 1;
                    inside.decrementAndGet();
                } finally {
                    lock.unlock();
                }
            }
        } catch (Throwable e) {
            failures.add(e);
        }
    }
}
