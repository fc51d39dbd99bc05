package io.latchkey.rw;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What the read-write lock promises beyond {@code DistributedLockContract} (the API.md rows of
 * {@code readLock()} and {@code writeLock()}, "Read-write lock, precisely", and the one token
 * sequence of "Holds, precisely"), through the public API only, so that a subclass runs it on any
 * topology. Owners are async owner ids where a test needs several in one thread; the blocking
 * calls' owner is the test's thread.
 */
abstract class ReadWriteLockContract {

    /** Watchdog lease of the clients whose leases a test lets run out. */
    static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);
    /** Slack on every "no later than" assertion. */
    static final Duration MARGIN = Duration.ofMillis(1000);
    /** How long a waiter is watched to make sure it is really still waiting. */
    static final Duration STILL_WAITING = Duration.ofMillis(300);
    private static final long FOREVER_SECONDS = 20;

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<ExecutorService> threads = new CopyOnWriteArrayList<>();

    /** The lock name of the running test, unique to it. */
    protected String name;

    /**
     * @param builder a builder that has no address yet
     * @return the same builder, pointed at the Redis of this topology
     */
    protected abstract LockConfig.Builder addresses(LockConfig.Builder builder);

    @BeforeEach
    void nameTheLock(TestInfo test) {
        name = "latchkey-test:" + getClass().getSimpleName() + ":"
                + test.getTestMethod().map(m -> m.getName()).orElse("unknown") + ":" + UUID.randomUUID();
    }

    @AfterEach
    void closeClientsAndThreads() {
        clients.forEach(LockClient::close);
        threads.forEach(ExecutorService::shutdownNow);
    }

    /** @return a client whose leases outlast any test: only an unlock ends its holds early */
    protected final LockClient newClient() {
        return newClient(Duration.ofSeconds(30));
    }

    protected final LockClient newClient(Duration watchdogTimeout) {
        LockClient client = LockClient.create(addresses(LockConfig.builder())
                .watchdogTimeout(watchdogTimeout)
                .commandTimeout(watchdogTimeout.compareTo(Duration.ofSeconds(12)) > 0 ? Duration.ofSeconds(3) : Duration.ofMillis(700))
                .build());
        clients.add(client);
        return client;
    }

    protected final DistributedReadWriteLock lockOf(LockClient client) {
        return client.getReadWriteLock(name);
    }

    protected final ExecutorService newThreads(int count) {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        threads.add(pool);
        return pool;
    }

    protected static long newOwnerId() {
        return ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
    }

    protected static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread();
    }

    /** Fails unless {@code condition} stays true for the whole {@code period}. */
    protected static void assertHoldsFor(Duration period, String what, java.util.concurrent.Callable<Boolean> condition) {
        await(what).during(period).atMost(period.plus(MARGIN.multipliedBy(2)))
                .pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread().until(condition);
    }

    protected static <T> T get(CompletableFuture<T> future) throws Exception {
        return future.get(FOREVER_SECONDS, TimeUnit.SECONDS);
    }

    protected static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    // ---- readLock(): shared ----------------------------------------------------------------

    @Test
    void readersOfSeveralClientsHoldTheReadLockAtOnceAndKeepTheWriterOut() throws Exception {
        List<DistributedReadWriteLock> locks = List.of(lockOf(newClient()), lockOf(newClient()), lockOf(newClient()));
        DistributedReadWriteLock writer = lockOf(newClient());
        long[] owners = {newOwnerId(), newOwnerId(), newOwnerId()};

        for (int i = 0; i < locks.size(); i++) {
            assertTrue(get(locks.get(i).readLock().tryLockAsync(Duration.ZERO, Duration.ofSeconds(30), owners[i])),
                    "reader " + i + " shares the read lock with those before it");
        }
        assertTrue(locks.get(0).readLock().tryLock(), "and so does one more owner of the first client");
        assertTrue(writer.readLock().isLocked());
        assertFalse(writer.writeLock().isLocked());
        assertFalse(writer.writeLock().tryLock(), "readers keep the writer out");

        locks.get(0).readLock().unlock();
        for (int i = 0; i < locks.size(); i++) {
            assertTrue(locks.get(i).readLock().isHeldBy(owners[i]));
            get(locks.get(i).readLock().unlockAsync(owners[i]));
        }
        assertFalse(writer.readLock().isLocked());
        assertTrue(writer.writeLock().tryLock(), "the last reader gone, the writer gets in");
        writer.writeLock().unlock();
    }

    // ---- writeLock(): exclusive ------------------------------------------------------------

    @Test
    void aWriterKeepsOutEveryOtherReaderAndWriter() throws Exception {
        DistributedReadWriteLock mine = lockOf(newClient());
        DistributedReadWriteLock theirs = lockOf(newClient());
        long sameClientOwner = newOwnerId();

        mine.writeLock().lock();
        assertTrue(theirs.writeLock().isLocked());
        assertFalse(theirs.readLock().isLocked(), "the read lock is not held: nobody reads");
        assertFalse(theirs.readLock().tryLock());
        assertFalse(theirs.writeLock().tryLock());
        assertFalse(get(mine.readLock().tryLockAsync(Duration.ZERO, Duration.ofSeconds(5), sameClientOwner)),
                "another owner of the writer's own client");
        assertFalse(get(theirs.readLock().tryLockAsync(Duration.ofMillis(200), Duration.ofSeconds(5), newOwnerId())));
        mine.writeLock().unlock();

        assertTrue(theirs.readLock().tryLock());
        theirs.readLock().unlock();
        assertFalse(theirs.writeLock().isLocked() || theirs.readLock().isLocked());
    }

    /**
     * Two clients, several threads each, mixing reads and writes: a writer is never inside with
     * anyone, and a counter that only writers change, without any atomicity of its own, counts
     * every write; readers were inside together at some point.
     */
    @Test
    void writersAreExclusiveAndReadersShareUnderContention() throws Exception {
        int clientCount = 2;
        int threadsPerClient = 4;
        int rounds = 15;
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger mostReadersAtOnce = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        int[] unguarded = new int[1];
        Queue<String> violations = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = newThreads(clientCount * threadsPerClient);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int c = 0; c < clientCount; c++) {
            DistributedReadWriteLock lock = lockOf(newClient(Duration.ofSeconds(10)));
            for (int t = 0; t < threadsPerClient; t++) {
                boolean writer = t == 0;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        if (writer || i % 5 == 4) {
                            lock.writeLock().lock();
                            try {
                                if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                                    violations.add("a writer was inside with someone else");
                                }
                                int seen = unguarded[0];
                                Thread.yield();
                                unguarded[0] = seen + 1;
                                writes.incrementAndGet();
                                writersInside.decrementAndGet();
                            } finally {
                                lock.writeLock().unlock();
                            }
                        } else {
                            lock.readLock().lock();
                            try {
                                int together = readersInside.incrementAndGet();
                                mostReadersAtOnce.accumulateAndGet(together, Math::max);
                                if (writersInside.get() != 0) {
                                    violations.add("a reader was inside with a writer");
                                }
                                Thread.sleep(2); // a read that takes a moment, so that readers meet
                                readersInside.decrementAndGet();
                            } finally {
                                lock.readLock().unlock();
                            }
                        }
                    }
                    return null;
                }));
            }
        }
        start.countDown();
        for (java.util.concurrent.Future<?> contender : done) {
            contender.get(90, TimeUnit.SECONDS);
        }

        assertTrue(violations.isEmpty(), "violations: " + violations);
        assertEquals(writes.get(), unguarded[0], "writes counted by the unguarded counter");
        assertTrue(mostReadersAtOnce.get() > 1, "readers never shared the lock: at most " + mostReadersAtOnce + " at once");
        DistributedReadWriteLock observer = lockOf(newClient());
        assertFalse(observer.readLock().isLocked() || observer.writeLock().isLocked(), "every hold was released");
    }

    // ---- writers are not starved -----------------------------------------------------------

    /**
     * A stream of readers: a new one arrives every 10 ms and each reads for 50 ms, so that about
     * five read at any moment and the read lock is never free. Without writer preference the
     * writer waits until its wait runs out (a mutation of acquire.lua that lets new readers
     * pass a waiting writer makes this test fail). It must get in, and no reader may hold while it
     * writes; the readers that arrived meanwhile get in after it.
     */
    @Test
    void aWaitingWriterIsNotStarvedByAStreamOfOverlappingReaders() throws Exception {
        List<DistributedReadWriteLock> readerLocks = List.of(lockOf(newClient()), lockOf(newClient()));
        DistributedReadWriteLock writer = lockOf(newClient());
        AtomicInteger arrivals = new AtomicInteger();
        AtomicInteger reading = new AtomicInteger();
        AtomicLong readsDone = new AtomicLong();
        AtomicBoolean stopped = new AtomicBoolean();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ScheduledExecutorService stream = Executors.newSingleThreadScheduledExecutor();
        threads.add(stream);
        stream.scheduleAtFixedRate(() -> {
            if (stopped.get()) {
                return;
            }
            DistributedReadWriteLock lock = readerLocks.get(arrivals.getAndIncrement() % readerLocks.size());
            long reader = newOwnerId();
            reading.incrementAndGet();
            lock.readLock().tryLockAsync(Duration.ofSeconds(10), Duration.ofSeconds(10), reader).whenComplete((held, failure) -> {
                if (failure != null || !held) {
                    failures.add(failure != null ? failure : new AssertionError("a reader waited 10 s"));
                    reading.decrementAndGet();
                    return;
                }
                stream.schedule(() -> lock.readLock().unlockAsync(reader).whenComplete((ok, unlockFailure) -> {
                    if (unlockFailure != null) {
                        failures.add(unlockFailure);
                    }
                    readsDone.incrementAndGet();
                    reading.decrementAndGet();
                }), 50, TimeUnit.MILLISECONDS);
            });
        }, 0, 10, TimeUnit.MILLISECONDS);

        within(Duration.ofSeconds(10)).until(() -> readsDone.get() > 20);
        long start = System.nanoTime();
        assertTrue(writer.writeLock().tryLock(Duration.ofSeconds(5)), "the writer was starved by the readers");
        long waited = millisSince(start);
        long readsBefore = readsDone.get();
        assertHoldsFor(Duration.ofMillis(100), "no reader holds while the writer writes", () -> !writer.readLock().isLocked());
        writer.writeLock().unlock();
        assertTrue(waited < 2_000, "the writer waited " + waited + " ms behind 50 ms reads");

        within(Duration.ofSeconds(10)).until(() -> readsDone.get() > readsBefore + 10);
        stopped.set(true);
        within(Duration.ofSeconds(10)).until(() -> reading.get() == 0);
        assertTrue(failures.isEmpty(), "readers failed: " + failures);
        assertFalse(writer.readLock().isLocked());
    }

    // ---- "Read-write lock, precisely": re-entry of a reader while a writer waits ----------------

    @Test
    void aReaderReentersWhileAWriterWaitsAndANewReaderWaitsBehindTheWriter() throws Exception {
        DistributedReadWriteLock reading = lockOf(newClient());
        DistributedReadWriteLock writing = lockOf(newClient());
        DistributedReadWriteLock arriving = lockOf(newClient());
        long reader = newOwnerId();
        long writer = newOwnerId();
        long newcomer = newOwnerId();

        get(reading.readLock().lockAsync(reader));
        CompletableFuture<Void> writerWaits = writing.writeLock().lockAsync(writer);
        assertHoldsFor(STILL_WAITING, "the writer waits for the reader", () -> !writerWaits.isDone());

        assertTrue(get(reading.readLock().tryLockAsync(Duration.ZERO, Duration.ofSeconds(30), reader)),
                "a reader that holds the lock re-enters it: it is no new arrival");
        assertFalse(get(arriving.readLock().tryLockAsync(Duration.ofMillis(200), Duration.ofSeconds(30), newcomer)),
                "a new reader waits behind the waiting writer");
        CompletableFuture<Void> newcomerWaits = arriving.readLock().lockAsync(newcomer);

        get(reading.readLock().unlockAsync(reader));
        assertFalse(writerWaits.isDone(), "one level of the reader's hold is left");
        long releasedAt = System.nanoTime();
        get(reading.readLock().unlockAsync(reader));
        get(writerWaits);
        assertTrue(millisSince(releasedAt) < MARGIN.toMillis(), "the last reader's release wakes the writer");
        assertFalse(newcomerWaits.isDone(), "the new reader waits for the writer too");

        releasedAt = System.nanoTime();
        get(writing.writeLock().unlockAsync(writer));
        get(newcomerWaits);
        assertTrue(millisSince(releasedAt) < MARGIN.toMillis(), "the writer's release wakes the reader");
        get(arriving.readLock().unlockAsync(newcomer));
    }

    // ---- downgrade and upgrade -------------------------------------------------------------

    @Test
    void theWriterTakesTheReadLockAndKeepsItAfterReleasingTheWriteLock() throws Exception {
        DistributedReadWriteLock mine = lockOf(newClient());
        DistributedReadWriteLock theirs = lockOf(newClient());
        long otherWriter = newOwnerId();

        LockHold write = mine.writeLock().acquire();
        CompletableFuture<Void> waitingWriter = theirs.writeLock().lockAsync(otherWriter);
        assertHoldsFor(STILL_WAITING, "the other writer waits", () -> !waitingWriter.isDone());
        LockHold read = mine.readLock().tryAcquire(Duration.ZERO).orElseThrow(
                () -> new AssertionError("the writer's own read was refused: it waited behind the waiting writer"));
        assertTrue(read.fencingToken() > write.fencingToken(), "the read hold is a hold of its own, begun after");
        assertEquals(1, mine.readLock().getHoldCount());
        assertEquals(1, mine.writeLock().getHoldCount());

        write.close();
        assertTrue(read.isValid(), "downgraded: still reading");
        assertEquals(0, mine.writeLock().getHoldCount());
        assertTrue(theirs.readLock().isLocked());
        assertFalse(theirs.writeLock().isLocked());
        assertFalse(theirs.readLock().tryLock(), "a new reader still waits behind the waiting writer");
        assertHoldsFor(STILL_WAITING, "the other writer waits for the read to end", () -> !waitingWriter.isDone());

        read.close();
        get(waitingWriter);
        get(theirs.writeLock().unlockAsync(otherWriter));

        // And with no writer waiting, readers join the downgraded writer at once.
        mine.writeLock().lock();
        mine.readLock().lock();
        mine.writeLock().unlock();
        assertTrue(theirs.readLock().tryLock(), "readers share the lock with the downgraded writer");
        theirs.readLock().unlock();
        mine.readLock().unlock();
    }

    @Test
    void theWriterReentersTheWriteLockAlsoWhileItHoldsTheReadLock() throws Exception {
        DistributedReadWriteLock lock = lockOf(newClient());
        DistributedReadWriteLock other = lockOf(newClient());

        LockHold write = lock.writeLock().acquire();
        lock.readLock().lock();
        LockHold again = lock.writeLock().acquire();
        assertEquals(write.fencingToken(), again.fencingToken(), "the same write hold");
        assertEquals(2, lock.writeLock().getHoldCount());
        assertEquals(1, lock.readLock().getHoldCount());
        assertFalse(other.readLock().tryLock());

        again.close();
        write.close();
        assertTrue(other.readLock().tryLock(), "the writer now only reads");
        other.readLock().unlock();
        lock.readLock().unlock();
        assertFalse(other.readLock().isLocked() || other.writeLock().isLocked());
    }

    @Test
    void aReaderAskingForTheWriteLockIsRefusedAtOnceWithIllegalMonitorState() throws Exception {
        DistributedReadWriteLock lock = lockOf(newClient());
        DistributedReadWriteLock other = lockOf(newClient());
        long owner = newOwnerId();

        lock.readLock().lock();
        long start = System.nanoTime();
        assertThrows(IllegalMonitorStateException.class, () -> lock.writeLock().lock());
        assertThrows(IllegalMonitorStateException.class, () -> lock.writeLock().tryLock(Duration.ofSeconds(10)));
        assertThrows(IllegalMonitorStateException.class, () -> lock.writeLock().acquire());
        IllegalMonitorStateException refused = assertThrows(IllegalMonitorStateException.class,
                () -> lock.writeLock().lockInterruptibly());
        assertFalse(refused instanceof LeaseLostException, "nothing was lost: " + refused);
        assertTrue(refused.getMessage().contains(name), "the message names the lock: " + refused.getMessage());
        assertTrue(millisSince(start) < MARGIN.toMillis(), "refused only after " + millisSince(start) + " ms");

        get(lock.readLock().lockAsync(owner));
        ExecutionException async = assertThrows(ExecutionException.class, () -> get(lock.writeLock().lockAsync(owner)));
        assertInstanceOf(IllegalMonitorStateException.class, async.getCause());

        assertEquals(1, lock.readLock().getHoldCount(), "the read hold is untouched");
        assertEquals(0, lock.writeLock().getHoldCount());
        assertTrue(other.readLock().tryLock(), "the refused upgrades left no waiting writer behind");
        other.readLock().unlock();
        get(lock.readLock().unlockAsync(owner));
        lock.readLock().unlock();
        assertTrue(other.writeLock().tryLock());
        other.writeLock().unlock();
    }

    // ---- wake-ups --------------------------------------------------------------------------

    @Test
    void aWritersReleaseWakesAWaitingWriterBeforeTheWaitingReaders() throws Exception {
        DistributedReadWriteLock holding = lockOf(newClient());
        DistributedReadWriteLock waiting = lockOf(newClient());
        long writer = newOwnerId();
        long reader = newOwnerId();

        holding.writeLock().lock();
        CompletableFuture<Void> readerWaits = waiting.readLock().lockAsync(reader);
        CompletableFuture<Void> writerWaits = waiting.writeLock().lockAsync(writer);
        assertHoldsFor(STILL_WAITING, "both wait", () -> !readerWaits.isDone() && !writerWaits.isDone());

        long releasedAt = System.nanoTime();
        holding.writeLock().unlock();
        get(writerWaits);
        assertTrue(millisSince(releasedAt) < MARGIN.toMillis(), "the waiting writer was woken by the release");
        assertFalse(readerWaits.isDone(), "the reader waits for the next writer");

        releasedAt = System.nanoTime();
        get(waiting.writeLock().unlockAsync(writer));
        get(readerWaits);
        assertTrue(millisSince(releasedAt) < MARGIN.toMillis(), "the reader was woken by the last writer's release");
        get(waiting.readLock().unlockAsync(reader));
    }

    @Test
    void aWritersReleaseWakesEveryWaitingReaderOfEveryClientAtOnce() throws Exception {
        DistributedReadWriteLock holding = lockOf(newClient());
        List<DistributedReadWriteLock> readerLocks = List.of(lockOf(newClient()), lockOf(newClient()));
        List<long[]> owners = new ArrayList<>();
        List<CompletableFuture<Void>> waits = new ArrayList<>();

        holding.writeLock().lock();
        for (DistributedReadWriteLock lock : readerLocks) {
            long[] ids = {newOwnerId(), newOwnerId(), newOwnerId()};
            owners.add(ids);
            for (long id : ids) {
                waits.add(lock.readLock().lockAsync(id));
            }
        }
        assertHoldsFor(STILL_WAITING, "the readers wait", () -> waits.stream().noneMatch(CompletableFuture::isDone));

        long releasedAt = System.nanoTime();
        holding.writeLock().unlock();
        for (CompletableFuture<Void> wait : waits) {
            get(wait);
        }
        long took = millisSince(releasedAt);
        assertTrue(took < MARGIN.toMillis(), "all six readers got in " + took + " ms after the release, not by message");
        for (int i = 0; i < readerLocks.size(); i++) {
            for (long id : owners.get(i)) {
                assertTrue(readerLocks.get(i).readLock().isHeldBy(id), "they all read at once");
            }
        }
        for (int i = 0; i < readerLocks.size(); i++) {
            for (long id : owners.get(i)) {
                get(readerLocks.get(i).readLock().unlockAsync(id));
            }
        }
    }

    @Test
    void readersHeldBackByAWriterThatGivesUpAreWokenAtOnce() throws Exception {
        DistributedReadWriteLock reading = lockOf(newClient());
        DistributedReadWriteLock writing = lockOf(newClient());
        DistributedReadWriteLock arriving = lockOf(newClient());
        long newcomer = newOwnerId();

        reading.readLock().lock();
        CompletableFuture<Boolean> writerTries = writing.writeLock().tryLockAsync(Duration.ofMillis(500),
                Duration.ofSeconds(30), newOwnerId());
        // The writer waits: new readers are held back from now on.
        within(Duration.ofSeconds(5)).until(() -> !probeRead(arriving));
        CompletableFuture<Void> newcomerWaits = arriving.readLock().lockAsync(newcomer);
        assertFalse(get(writerTries), "the writer gives up");
        long gaveUpAt = System.nanoTime();
        get(newcomerWaits);
        assertTrue(millisSince(gaveUpAt) < MARGIN.toMillis(), "the reader was woken as the writer left");
        get(arriving.readLock().unlockAsync(newcomer));
        reading.readLock().unlock();
    }

    /** @return whether a new reader got in at once; it leaves again if so */
    private static boolean probeRead(DistributedReadWriteLock lock) throws Exception {
        long probe = newOwnerId();
        boolean got = get(lock.readLock().tryLockAsync(Duration.ZERO, Duration.ofSeconds(5), probe));
        if (got) {
            get(lock.readLock().unlockAsync(probe));
        }
        return got;
    }

    // ---- leases ----------------------------------------------------------------------------

    /**
     * Every reader has a lease of its own: one that stops renewing (its client closed, as a
     * crashed process would) loses its hold when its lease runs out, while another reader's
     * watchdog keeps its own; the waiting writer gets in when that one leaves.
     */
    @Test
    void aReaderThatStopsRenewingLosesItsHoldWhileAnotherReaderKeepsRenewingItsOwn() throws Exception {
        LockClient crashing = newClient(WATCHDOG_TIMEOUT);
        DistributedReadWriteLock renewing = lockOf(newClient(WATCHDOG_TIMEOUT));
        DistributedReadWriteLock writing = lockOf(newClient());
        long writer = newOwnerId();

        lockOf(crashing).readLock().lock();
        LockHold kept = renewing.readLock().acquire();
        CompletableFuture<Void> writerWaits = writing.writeLock().lockAsync(writer);
        crashing.close();

        // Past the closed client's lease, and several renewals of the other reader's.
        assertHoldsFor(WATCHDOG_TIMEOUT.multipliedBy(2), "the renewed reader keeps the writer out",
                () -> !writerWaits.isDone() && kept.isValid());
        assertTrue(writing.readLock().isLocked());
        long releasedAt = System.nanoTime();
        kept.close();
        get(writerWaits);
        assertTrue(millisSince(releasedAt) < MARGIN.toMillis(), "the closed client's hold was long gone");
        get(writing.writeLock().unlockAsync(writer));
    }

    @Test
    void aReadersFixedLeaseRunsOutWhileAnotherReaderHolds() throws Exception {
        DistributedReadWriteLock fixed = lockOf(newClient());
        DistributedReadWriteLock renewed = lockOf(newClient(WATCHDOG_TIMEOUT));
        DistributedReadWriteLock observer = lockOf(newClient());
        long owner = newOwnerId();

        LockHold shortHold = get(fixed.readLock().acquireAsync(Duration.ofMillis(300), owner));
        renewed.readLock().lock();
        get(shortHold.leaseLost());
        assertFalse(fixed.readLock().isHeldBy(owner), "the fixed lease ran out");
        assertTrue(observer.readLock().isLocked(), "the other reader still holds");
        Duration left = observer.readLock().remainingLease();
        assertTrue(left.compareTo(WATCHDOG_TIMEOUT) <= 0 && !left.isZero(), "the renewed reader's lease: " + left);
        renewed.readLock().unlock();
        assertFalse(observer.readLock().isLocked());
    }

    // ---- tokens ----------------------------------------------------------------------------

    @Test
    void readAndWriteHoldsShareOneTokenSequence() throws Exception {
        DistributedReadWriteLock one = lockOf(newClient());
        DistributedReadWriteLock two = lockOf(newClient());
        List<Long> tokens = new ArrayList<>();

        LockHold firstReader = one.readLock().acquire();
        LockHold secondReader = get(two.readLock().acquireAsync(newOwnerId()));
        tokens.add(firstReader.fencingToken());
        tokens.add(secondReader.fencingToken());
        firstReader.close();
        secondReader.close();
        LockHold writer = two.writeLock().acquire();
        tokens.add(writer.fencingToken());
        LockHold writersRead = two.readLock().acquire();
        tokens.add(writersRead.fencingToken());
        writer.close();
        writersRead.close();
        try (LockHold reader = one.readLock().acquire()) {
            tokens.add(reader.fencingToken());
        }
        try (LockHold nextWriter = one.writeLock().acquire()) {
            tokens.add(nextWriter.fencingToken());
        }

        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "each hold's token exceeds every earlier one: " + tokens);
        }
    }
}
