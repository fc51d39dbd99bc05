package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.contract.CriticalSection;
import io.latchkey.contract.CriticalSection.Acquire;
import io.latchkey.testing.RedisServer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual exclusion checked, not assumed: two clients (as two JVMs would) with eight threads each
 * contend for one lock through every blocking acquire flavour. Each hold records entering and
 * leaving the critical section; the test asserts that there was never more than one holder and
 * that a counter updated without any atomicity of its own counted every hold.
 *
 * <p>The same again with virtual threads as the contenders, many more of them than carrier
 * threads, on Java 21 and later (skipped, saying so, on older runtimes): the blocking methods
 * take the calling thread as the owner, and a virtual thread must be an owner like any other.
 */
class MutualExclusionTest {

    private final CriticalSection section = new CriticalSection();

    private static final int CLIENTS = 2;
    private static final int THREADS_PER_CLIENT = 8;
    private static final int ACQUISITIONS_PER_THREAD = 25;
    // Virtual threads: many more contenders than carrier threads, fewer holds each.
    private static final int VIRTUAL_THREADS_PER_CLIENT = 32;
    private static final int ACQUISITIONS_PER_VIRTUAL_THREAD = 8;

    private static RedisServer redis;

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

    private static final List<Acquire> FLAVOURS = CriticalSection.flavours(Duration.ofSeconds(30), Duration.ofSeconds(10));

    @Test
    void neverMoreThanOneHolderAndEveryHoldCounted() throws Exception {
        contend(Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT), THREADS_PER_CLIENT, ACQUISITIONS_PER_THREAD);
    }

    @Test
    void neverMoreThanOneHolderAndEveryHoldCountedWithVirtualThreads() throws Throwable {
        VirtualThreads virtual = VirtualThreads.ofRuntime();
        CountingThreadFactory threadFactory = new CountingThreadFactory(virtual.factory());
        contend(virtual.threadPerTaskExecutor(threadFactory), VIRTUAL_THREADS_PER_CLIENT, ACQUISITIONS_PER_VIRTUAL_THREAD);

        assertEquals(CLIENTS * VIRTUAL_THREADS_PER_CLIENT, threadFactory.created(), "contender threads created");
        assertEquals(threadFactory.created(), threadFactory.createdMatching(virtual::isVirtual),
                "contender threads that are virtual");
    }

    private void contend(ExecutorService threads, int threadsPerClient, int acquisitionsPerThread) throws Exception {
        String name = "latchkey-test:mutual-exclusion:" + UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                LockClient client = LockClient.create(LockConfig.builder().address(redis.uri())
                        .watchdogTimeout(Duration.ofSeconds(10)).commandTimeout(Duration.ofSeconds(2)).build());
                clients.add(client);
                for (int t = 0; t < threadsPerClient; t++) {
                    Acquire flavour = FLAVOURS.get(t % FLAVOURS.size());
                    DistributedLock lock = client.getLock(name);
                    threads.execute(section.contender(lock, flavour, start, acquisitionsPerThread));
                }
            }
            start.countDown();
            threads.shutdown();
            assertTrue(threads.awaitTermination(90, TimeUnit.SECONDS), "the contenders did not finish");

            section.assertExclusive(CLIENTS * threadsPerClient * acquisitionsPerThread);
            assertFalse(clients.get(0).getLock(name).isLocked(), "every hold was released");
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
    }

    /**
     * Java 21's virtual threads, reached through method handles: the tests compile for Java 17,
     * where {@code Thread.ofVirtual()} does not exist.
     */
    private static final class VirtualThreads {

        private final ThreadFactory factory;
        private final MethodHandle threadPerTaskExecutor;
        private final MethodHandle isVirtual;

        private VirtualThreads(ThreadFactory factory, MethodHandle threadPerTaskExecutor, MethodHandle isVirtual) {
            this.factory = factory;
            this.threadPerTaskExecutor = threadPerTaskExecutor;
            this.isVirtual = isVirtual;
        }

        /**
         * @return the runtime's virtual threads; on a runtime before Java 21 the calling test is
         *     aborted (reported as skipped) with the reason
         * @throws Throwable if the runtime has virtual threads but they cannot be reached
         */
        static VirtualThreads ofRuntime() throws Throwable {
            Assumptions.assumeTrue(Runtime.version().feature() >= 21,
                    () -> "virtual threads need Java 21 or later; this runtime is Java " + Runtime.version());
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Object ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(
                    Class.forName("java.lang.Thread$Builder$OfVirtual"))).invoke();
            ThreadFactory factory = (ThreadFactory) lookup.findVirtual(builder, "factory",
                    MethodType.methodType(ThreadFactory.class)).invoke(ofVirtual);
            MethodHandle threadPerTaskExecutor = lookup.findStatic(Executors.class, "newThreadPerTaskExecutor",
                    MethodType.methodType(ExecutorService.class, ThreadFactory.class));
            MethodHandle isVirtual = lookup.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
            return new VirtualThreads(factory, threadPerTaskExecutor, isVirtual);
        }

        /** @return a factory of virtual threads */
        ThreadFactory factory() {
            return factory;
        }

        /**
         * @param threads where the executor's threads come from
         * @return an executor that starts a new thread of {@code threads} for every task
         */
        ExecutorService threadPerTaskExecutor(ThreadFactory threads) {
            try {
                return (ExecutorService) threadPerTaskExecutor.invoke(threads);
            } catch (Throwable e) {
                throw new IllegalStateException("Executors.newThreadPerTaskExecutor failed", e);
            }
        }

        /**
         * @param thread any thread
         * @return whether it is a virtual thread
         */
        boolean isVirtual(Thread thread) {
            try {
                return (boolean) isVirtual.invoke(thread);
            } catch (Throwable e) {
                throw new IllegalStateException("Thread.isVirtual failed", e);
            }
        }
    }

    /** Remembers the threads it makes, so the test can say what its contenders ran on. */
    private static final class CountingThreadFactory implements ThreadFactory {

        private final ThreadFactory delegate;
        private final Queue<Thread> threads = new ConcurrentLinkedQueue<>();

        CountingThreadFactory(ThreadFactory delegate) {
            this.delegate = delegate;
        }

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = delegate.newThread(task);
            threads.add(thread);
            return thread;
        }

        int created() {
            return threads.size();
        }

        long createdMatching(Predicate<Thread> condition) {
            return threads.stream().filter(condition).count();
        }
    }
}
