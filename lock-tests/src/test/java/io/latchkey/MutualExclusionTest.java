package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * Mutual exclusion checked, not assumed: two clients (as two JVMs would) with eight threads each
 * contend for one lock through every blocking acquire flavour. Each hold records entering and
 * leaving the critical section; the test asserts that there was never more than one holder and
 * that a counter updated without any atomicity of its own counted every hold.
 */
class MutualExclusionTest {

    private static final int CLIENTS = 2;
    private static final int THREADS_PER_CLIENT = 8;
    private static final int ACQUISITIONS_PER_THREAD = 25;

    private static RedisServer redis;

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
    }

    @AfterAll
    static void stopRedis() {
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
                if (!lock.tryLock(Duration.ofSeconds(30))) {
                    throw new AssertionError("tryLock(30 s) gave up under fair contention");
                }
            },
            lock -> lock.lock(Duration.ofSeconds(10)));

    @Test
    void neverMoreThanOneHolderAndEveryHoldCounted() throws Exception {
        String name = "latchkey-test:mutual-exclusion:" + UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                LockClient client = LockClient.create(LockConfig.builder().address(redis.uri())
                        .watchdogTimeout(Duration.ofSeconds(10)).commandTimeout(Duration.ofSeconds(2)).build());
                clients.add(client);
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    Acquire flavour = FLAVOURS.get(t % FLAVOURS.size());
                    DistributedLock lock = client.getLock(name);
                    threads.execute(() -> contend(lock, flavour, start));
                }
            }
            start.countDown();
            threads.shutdown();
            assertTrue(threads.awaitTermination(90, TimeUnit.SECONDS), "the contenders did not finish");

            assertAll(
                    () -> assertEquals(0, overlaps.get(), "times two holders were inside at once"),
                    () -> assertEquals(CLIENTS * THREADS_PER_CLIENT * ACQUISITIONS_PER_THREAD, counter,
                            "holds counted by the unguarded counter"),
                    () -> assertTrue(failures.isEmpty(), "contenders failed: " + failures));
            assertFalse(clients.get(0).getLock(name).isLocked(), "every hold was released");
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
