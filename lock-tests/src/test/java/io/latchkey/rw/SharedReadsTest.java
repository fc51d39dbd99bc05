package io.latchkey.rw;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LocalHandOff;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.RedisInspector;
import io.latchkey.TimingBound;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Shared reads against a real Redis: a client with local hand-off holds the read lock in Redis
 * once and admits its further readers without a round trip (counted with {@code INFO
 * commandstats}), gives way to a writer of another client within the hand-off's bounds while its
 * readers keep coming, keeps a waiting writer's place, and reports the loss of its shared hold to
 * every local reader. The same rows without local hand-off show what each reader costs otherwise.
 */
@TimingBound
class SharedReadsTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(700);
    private static final Duration MARGIN = Duration.ofMillis(1000);
    /** When a client learns of a lost hold: a renewal period, its answer, and slack. */
    private static final Duration LOSS_NOTICE = WATCHDOG_TIMEOUT.dividedBy(3).plus(COMMAND_TIMEOUT).plus(MARGIN);
    private static final int READERS = 100;
    /** Longer than the default bound's time ({@code LocalHandOff.DEFAULT}): a client that heard no later from Redis admits nobody. */
    private static final long PAST_THE_BOUND_MILLIS = LocalHandOff.DEFAULT.maxTime().toMillis() + 30;

    private static RedisServer redis;
    private static RedisInspector inspector;
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();
    private String name;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        inspector = new RedisInspector(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (inspector != null) {
            inspector.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void nameTheLock(TestInfo test) {
        name = "latchkey-test:shared-reads:" + test.getTestMethod().map(m -> m.getName()).orElse("unknown") + ":"
                + UUID.randomUUID();
    }

    @AfterEach
    void closeClients() {
        pools.forEach(ExecutorService::shutdownNow);
        clients.forEach(LockClient::close);
    }

    private LockClient client(boolean handOff) {
        return client(handOff, WATCHDOG_TIMEOUT);
    }

    private LockClient client(boolean handOff, Duration watchdogTimeout) {
        LockConfig.Builder builder = LockConfig.builder().address(redis.uri()).watchdogTimeout(watchdogTimeout)
                .commandTimeout(COMMAND_TIMEOUT);
        LockClient client = LockClient.create(handOff ? builder.build() : builder.noLocalHandOff().build());
        clients.add(client);
        return client;
    }

    private ExecutorService threads(int count) {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        pools.add(pool);
        return pool;
    }

    private static long newOwnerId() {
        return ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
    }

    private static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(20, TimeUnit.SECONDS);
    }

    /** @return the script calls Redis has run so far */
    private static long scriptCalls() {
        long calls = 0;
        for (String line : inspector.commands().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String stats = line.substring(line.indexOf(':') + 1);
                calls += Long.parseLong(stats.substring("calls=".length(), stats.indexOf(',')));
            }
        }
        return calls;
    }

    /**
     * @return the script calls of {@code READERS} readers of one client, each acquiring and
     *     releasing while one reader holds, and the milliseconds they took
     */
    private long[] scriptCallsOfReaders(boolean handOff) throws Exception {
        // A lease longer than the test: no renewal is counted.
        DistributedReadWriteLock lock = client(handOff, Duration.ofSeconds(30)).getReadWriteLock(name);
        long first = newOwnerId();
        get(lock.readLock().lockAsync(first));
        long before = scriptCalls();
        long started = System.nanoTime();
        for (int i = 0; i < READERS; i++) {
            long reader = newOwnerId();
            get(lock.readLock().lockAsync(reader));
            get(lock.readLock().unlockAsync(reader));
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        long calls = scriptCalls() - before;
        get(lock.readLock().unlockAsync(first));
        return new long[] {calls, millis};
    }

    @Test
    void readersOfOneClientAfterTheFirstTakeNoRoundTrip() throws Exception {
        long[] shared = scriptCallsOfReaders(true);
        name = name + ":no-hand-off";
        long own = scriptCallsOfReaders(false)[0];

        // No call per reader: only the reserves, one every half bound of admissions (16 by
        // default) or of time (10 ms), whichever comes first.
        LocalHandOff bounds = LocalHandOff.DEFAULT;
        long reserves = READERS / (bounds.maxHandOffs() / 2) + shared[1] / (bounds.maxTime().toMillis() / 2) + 1;
        assertTrue(shared[0] <= reserves, "script calls of " + READERS + " readers with shared reads in " + shared[1]
                + " ms: " + shared[0] + ", more than " + reserves);
        assertTrue(own >= 2 * READERS, "script calls of " + READERS + " readers without: " + own);
    }

    @Test
    void aWriterOfAnotherClientGetsTheLockWithinTheBoundWhileThisClientsReadersKeepComing() throws Exception {
        DistributedReadWriteLock readers = client(true).getReadWriteLock(name);
        DistributedReadWriteLock writers = client(true).getReadWriteLock(name);
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicLong reads = new AtomicLong();
        AtomicBoolean writerIn = new AtomicBoolean();
        AtomicBoolean overlap = new AtomicBoolean();
        ExecutorService pool = threads(4);
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            // Overlapping reads: the shared hold would never be released if admissions went on.
            loops.add(pool.submit(() -> {
                while (reading.get()) {
                    readers.readLock().lock();
                    try {
                        if (writerIn.get()) {
                            overlap.set(true);
                        }
                        reads.incrementAndGet();
                        Thread.onSpinWait();
                    } finally {
                        readers.readLock().unlock();
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > 200);

        long started = System.nanoTime();
        assertTrue(writers.writeLock().tryLock(Duration.ofSeconds(10)), "the writer got the lock");
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        writerIn.set(true);
        long readsWhileWriting = reads.get();
        await("no read while the writer holds").during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(5)).until(() -> reads.get() == readsWhileWriting);
        writerIn.set(false);
        writers.writeLock().unlock();
        await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > readsWhileWriting);
        reading.set(false);
        for (Future<?> loop : loops) {
            loop.get(20, TimeUnit.SECONDS);
        }

        assertFalse(overlap.get(), "a reader was in with the writer");
        // The bound: 32 admissions or 20 ms after Redis has the writer's place, then the reads in finish.
        assertTrue(waitedMillis < 3_000, "the writer waited " + waitedMillis + " ms");
    }

    @Test
    void aWaitingWritersPlaceIsKeptAgainstNewReadersOfTheReadingClient() throws Exception {
        DistributedReadWriteLock readers = client(true).getReadWriteLock(name);
        DistributedReadWriteLock writers = client(true).getReadWriteLock(name);
        long first = newOwnerId();
        get(readers.readLock().lockAsync(first));
        long writer = newOwnerId();
        CompletableFuture<Void> writing = writers.writeLock().lockAsync(writer);
        String waiting = "latchkey:{" + name + "}:writers";
        await().atMost(Duration.ofSeconds(10)).until(() -> inspector.commands().zcard(waiting) == 1);
        // The bound's time must pass, as a lease must run out: from then on the reading client
        // has not heard from Redis recently enough to admit anyone without asking.
        Thread.sleep(PAST_THE_BOUND_MILLIS);

        long late = newOwnerId();
        assertFalse(get(readers.readLock().tryLockAsync(Duration.ofMillis(300), Duration.ofSeconds(10), late)),
                "a reader that came after the writer waits behind it");
        CompletableFuture<Boolean> later = readers.readLock().tryLockAsync(Duration.ofSeconds(10), Duration.ofSeconds(10), late);
        get(readers.readLock().unlockAsync(first));
        get(writing);
        assertFalse(later.isDone(), "the writer went first");
        get(writers.writeLock().unlockAsync(writer));
        assertTrue(get(later));
        get(readers.readLock().unlockAsync(late));
    }

    @Test
    void theLossOfTheSharedReadHoldReachesEveryLocalReader() throws Exception {
        LockClient client = client(true);
        DistributedReadWriteLock lock = client.getReadWriteLock(name);
        LockHold one = get(lock.readLock().acquireAsync(newOwnerId()));
        LockHold two = get(lock.readLock().acquireAsync(newOwnerId()));
        LockHold three = get(lock.readLock().acquireAsync(newOwnerId()));

        assertTrue(client(true).getReadWriteLock(name).readLock().forceUnlock());

        for (LockHold hold : List.of(one, two, three)) {
            hold.leaseLost().get(LOSS_NOTICE.toMillis(), TimeUnit.MILLISECONDS);
            assertFalse(hold.isValid());
        }
        assertThrows(LeaseLostException.class, two::close);
        LockHold next = get(lock.readLock().acquireAsync(newOwnerId()));
        assertTrue(next.fencingToken() > three.fencingToken(), "a new shared hold, with new tokens");
        next.close();
    }

    @Test
    void aWritersTokenExceedsEveryEarlierLocalReadersAndTheReadersTokensGrow() throws Exception {
        DistributedReadWriteLock readers = client(true).getReadWriteLock(name);
        DistributedReadWriteLock writers = client(true).getReadWriteLock(name);
        List<LockHold> reads = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            reads.add(get(readers.readLock().acquireAsync(newOwnerId())));
        }
        for (int i = 1; i < reads.size(); i++) {
            assertTrue(reads.get(i).fencingToken() > reads.get(i - 1).fencingToken(), "tokens grow: " + i);
        }
        reads.forEach(LockHold::close);

        LockHold write = get(writers.writeLock().acquireAsync(newOwnerId()));

        assertTrue(write.fencingToken() > reads.get(reads.size() - 1).fencingToken());
        write.close();
    }

    @Test
    void aLocalReaderAskingForTheWriteLockIsRefusedAsAnUpgradeAndTheWritersOwnReadGoesBesideIt() throws Exception {
        DistributedReadWriteLock lock = client(true).getReadWriteLock(name);
        long other = newOwnerId();
        get(lock.readLock().lockAsync(other));
        long reader = newOwnerId();
        get(lock.readLock().lockAsync(reader)); // admitted locally

        CompletableFuture<Void> upgrade = lock.writeLock().lockAsync(reader);
        Exception failure = assertThrows(Exception.class, () -> get(upgrade));
        assertTrue(failure.getCause() instanceof IllegalMonitorStateException, failure.toString());

        get(lock.readLock().unlockAsync(reader));
        get(lock.readLock().unlockAsync(other));
        long writer = newOwnerId();
        get(lock.writeLock().lockAsync(writer));
        assertTrue(get(lock.readLock().tryLockAsync(Duration.ofSeconds(2), Duration.ofSeconds(10), writer)), "a downgrade");
        get(lock.writeLock().unlockAsync(writer));
        get(lock.readLock().unlockAsync(writer));
    }
}
