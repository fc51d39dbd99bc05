package io.latchkey;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LockClient#close()} stops everything the client started: its threads, its
 * subscriptions, its pending waits. Plain lock only: the subscription check reads the plain
 * lock's unlock channel, and locks are held "by someone else" with a raw HSET in its layout.
 */
class ClientCloseTest {

    /** Threads that the JVM, JUnit, Surefire or Awaitility may start while a test runs. */
    private static final List<String> FOREIGN_THREAD_PREFIXES = List.of(
            "ForkJoinPool.commonPool", "process reaper", "Attach Listener", "Common-Cleaner",
            "Signal Dispatcher", "Finalizer", "Reference Handler", "Notification Thread",
            "Keep-Alive", "surefire", "junit", "awaitility");

    /** Lettuce's pool threads: {@code lettuce-<kind>-<pool>-<thread>}, e.g. {@code lettuce-epollEventLoop-4-1}. */
    private static final Pattern LETTUCE_POOL = Pattern.compile("lettuce-(?:epoll|nio|kqueue|ioUring)?(\\w+?)-(\\d+)-\\d+");

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private String name;

    @BeforeEach
    void nameTheLock() {
        name = "latchkey-test:client-close:" + UUID.randomUUID();
    }

    private static LockClient newClient() {
        return LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(Duration.ofMillis(1500)).commandTimeout(Duration.ofMillis(700)).build());
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollInSameThread();
    }

    /** Starts a waiter on a lock held elsewhere and returns once it is subscribed to the unlock channel. */
    private static CompletableFuture<Void> pendingWait(LockClient client, String lockName) {
        REDIS.inspector().holdElsewhere(lockName);
        long owner = ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
        CompletableFuture<Void> pending = client.getLock(lockName).lockAsync(owner);
        String channel = RedisInspector.channelOf(lockName);
        within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(channel) == 1);
        assertFalse(pending.isDone(), "the lock is held elsewhere, so the wait is pending");
        return pending;
    }

    private static Set<Thread> liveThreads() {
        return new HashSet<>(Thread.getAllStackTraces().keySet());
    }

    private static List<String> threadsStartedSince(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> !before.contains(t))
                .map(Thread::getName)
                .filter(n -> FOREIGN_THREAD_PREFIXES.stream().noneMatch(n::startsWith))
                .sorted()
                .toList();
    }

    /**
     * One set of threads per client, however many Redis servers it talks to: before, every
     * RedLock master was a whole client of its own (an address plus three masters ran four
     * Latchkey timers, four Lettuce timers and four sets of event loops).
     */
    @Test
    void aClientWithAnAddressAndThreeRedLockMastersRunsOneTimerAndOneSetOfEventLoops() {
        try (RedisServers masters = RedisServers.start(3)) {
            Set<Thread> before = liveThreads();
            // A generous attempt timeout: the subject is threads, and a JVM's first RedLock calls
            // once took more than the default 100 ms on every master in the JDK 25 pass of CI.
            LockClient client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                    .redLockAddresses(masters.uris()).redLockAttemptTimeout(Duration.ofSeconds(2)).build());
            DistributedLock plain = client.getLock(name);
            DistributedLock red = client.getRedLock(name);
            plain.lock();
            red.lock();
            CompletableFuture<Void> pending = pendingWait(client, name + ":held");

            List<String> threads = threadsStartedSince(before);
            assertEquals(List.of("latchkey-timer"), threads.stream().filter(n -> n.contains("timer")).map(n -> n.replaceAll("-\\d+", "")).toList(),
                    "one timer, Latchkey's, which Lettuce uses too: " + threads);
            Map<String, Set<String>> pools = new TreeMap<>();
            for (String thread : threads) {
                Matcher pool = LETTUCE_POOL.matcher(thread);
                if (pool.matches()) {
                    pools.computeIfAbsent(pool.group(1), kind -> new TreeSet<>()).add(pool.group(2));
                }
            }
            assertEquals(1, pools.getOrDefault("EventLoop", Set.of()).size(), "one set of I/O event loops: " + threads);
            pools.forEach((kind, instances) -> assertEquals(1, instances.size(), "one " + kind + " pool: " + threads));

            plain.unlock();
            red.unlock();
            client.close();
            within(Duration.ofSeconds(5)).until(pending::isDone);
            within(Duration.ofSeconds(15)).untilAsserted(() -> assertEquals(List.of(), threadsStartedSince(before),
                    "threads still alive after close()"));
        }
    }

    @Test
    void closeStopsEveryThreadTheClientStarted() {
        Set<Thread> before = liveThreads();
        LockClient client = newClient();
        DistributedLock lock = client.getLock(name);
        lock.lock(); // starts the watchdog
        CompletableFuture<Void> pending = pendingWait(client, name + ":held"); // starts the pub/sub connection
        assertFalse(threadsStartedSince(before).isEmpty(), "a connected client runs threads of its own");

        lock.unlock();
        client.close();
        within(Duration.ofSeconds(5)).until(pending::isDone);
        within(Duration.ofSeconds(15)).untilAsserted(() -> assertEquals(List.of(), threadsStartedSince(before),
                "threads still alive after close()"));
    }

    @Test
    void closeUnsubscribesEveryChannel() {
        LockClient client = newClient();
        String channel = RedisInspector.channelOf(name);
        pendingWait(client, name);
        assertEquals(List.of(channel), REDIS.inspector().activeChannels("*" + name + "*"));

        client.close();
        within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(channel) == 0);
        assertEquals(List.of(), REDIS.inspector().activeChannels("*" + name + "*"));
    }

    @Test
    void closeTwiceIsHarmless() {
        LockClient client = newClient();
        client.getLock(name).lock();
        client.close();
        client.close();
    }

    @Test
    void closeFailsAPendingLockAsyncWithLockException() {
        LockClient client = newClient();
        CompletableFuture<Void> pending = pendingWait(client, name);

        client.close();
        ExecutionException failure = assertThrows(ExecutionException.class, () -> pending.get(5, TimeUnit.SECONDS));
        assertInstanceOf(LockException.class, failure.getCause());
    }

    @Test
    void closeFailsABlockedLockWithLockException() throws Exception {
        LockClient client = newClient();
        REDIS.inspector().holdElsewhere(name);
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1);
            Future<?> blocked = waiter.submit(() -> {
                started.countDown();
                client.getLock(name).lock();
            });
            assertTrue(started.await(5, TimeUnit.SECONDS));
            String channel = RedisInspector.channelOf(name);
            within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(channel) == 1);

            client.close();
            ExecutionException failure = assertThrows(ExecutionException.class, () -> blocked.get(5, TimeUnit.SECONDS));
            assertInstanceOf(LockException.class, failure.getCause());
        } finally {
            waiter.shutdownNow();
            client.close();
        }
    }

    /**
     * The race of issue 10 (4): a waiter whose try is on the wire when close() fails the waits
     * parks its next wait after that, on a timer that close() then stops. A stream of unlock
     * messages keeps the waiters retrying, so that in most rounds some try is in flight at close().
     */
    @Test
    void closeEndsEveryBlockedLockWithLockExceptionAlsoWhileTheyRetry() throws Exception {
        int rounds = 20;
        int waitersPerRound = 4;
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            for (int round = 0; round < rounds; round++) {
                String lockName = name + ":" + round;
                String channel = RedisInspector.channelOf(lockName);
                REDIS.inspector().holdElsewhere(lockName);
                LockClient client = newClient();
                List<Future<?>> blocked = new ArrayList<>();
                for (int i = 0; i < waitersPerRound; i++) {
                    blocked.add(threads.submit(() -> client.getLock(lockName).lock()));
                }
                within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(channel) == 1);
                AtomicBoolean publishing = new AtomicBoolean(true);
                Future<?> publisher = threads.submit(() -> {
                    while (publishing.get()) {
                        REDIS.inspector().commands().publish(channel, "");
                    }
                });
                try {
                    client.close();
                    for (Future<?> waiter : blocked) {
                        ExecutionException failure = assertThrows(ExecutionException.class, () -> waiter.get(5, TimeUnit.SECONDS),
                                "round " + round + ": a blocked lock() did not end after close()");
                        assertInstanceOf(LockException.class, failure.getCause(), "round " + round);
                    }
                } finally {
                    publishing.set(false);
                    publisher.get(5, TimeUnit.SECONDS);
                    client.close();
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
