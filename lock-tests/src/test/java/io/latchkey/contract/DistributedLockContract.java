package io.latchkey.contract;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import io.latchkey.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.function.Executable;

/**
 * The semantics every lock kind honours (the table in API.md), as one test per row, in the
 * manner of Curator's {@code TestInterProcessMutexBase}. A subclass says where Redis is, how to
 * get its kind of lock, and how to take Redis away and bring it back; everything else is checked
 * through the public API only, so the same assertions hold for the plain, fair and Red lock, and
 * for both sides of the read-write lock. Where another owner must hold the lock, or must be kept
 * out by a hold, the test uses the kind's {@link #rival rival}: the same kind's lock, except for a
 * lock that owners share (the read lock), whose rival is one that excludes it (the write lock).
 *
 * <p>Each lock kind runs every row once, in its own class ({@code PlainLockTest}, {@code
 * CohortContractTest}, {@code FairLockContractTest}, the read and the write lock's, {@code
 * RedLockContractTest}, {@code MultiLockContractTest}). The classes that run a kind again on a
 * Cluster, on Redis 6.2 or with parts of other kinds skip the rows marked {@link ClientSideRow}
 * (see {@link VariantRows}).
 *
 * <p>Every test uses a lock name of its own and closes the clients and threads it made. Clients
 * use short timings ({@link #WATCHDOG_TIMEOUT}, {@link #COMMAND_TIMEOUT}) so that leases run out
 * within the test; timing assertions leave a generous {@link #MARGIN} for slow machines.
 */
public abstract class DistributedLockContract {

    /** Watchdog lease of the clients made by {@link #newClient()}: renewed every 500 ms. */
    protected static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);

    /** A watchdog lease so long that no test waits for it: only a message can end such a hold early. */
    protected static final Duration LONG_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Bound on one Redis round trip of the clients made by {@link #newClient()}: short, so that
     * the Redis-down rows fail fast, yet the longest that the 1.5 s watchdog lease allows, so
     * that a busy machine does not turn an ordinary call into a timeout.
     */
    protected static final Duration COMMAND_TIMEOUT = Duration.ofMillis(700);

    /** Bound on one Redis round trip of the clients made by {@link #newHolderClient()}. */
    protected static final Duration HOLDER_COMMAND_TIMEOUT = Duration.ofSeconds(5);

    /** Slack on every "no later than" assertion. */
    protected static final Duration MARGIN = Duration.ofMillis(1000);
    /** A wait that a short outage does not lengthen: it tries for the command timeout, as a zero wait does. */
    protected static final Duration SHORTER_THAN_THE_COMMAND_TIMEOUT = COMMAND_TIMEOUT.dividedBy(2);

    /** How long a waiter is watched to make sure it is really still waiting. */
    protected static final Duration STILL_WAITING = Duration.ofMillis(200);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<OwnerThread> ownerThreads = new CopyOnWriteArrayList<>();

    /** The lock name of the running test, unique to it. */
    protected String name;

    /**
     * Points the builder at the Redis servers of this lock kind; the subclass starts them (once
     * per class is enough) and stops them.
     *
     * @param builder a builder that has no address yet
     * @return the same builder
     */
    protected abstract LockConfig.Builder addresses(LockConfig.Builder builder);

    /**
     * @param client a client made by {@link #newClient()}
     * @param name the lock name
     * @return the lock kind under test, e.g. {@code client.getLock(name)}
     */
    protected abstract DistributedLock lock(LockClient client, String name);

    /**
     * A lock of the same name that cannot be held beside the lock under test by another owner:
     * by default the same kind's lock. Rows that need "someone else holds it" hold this one, and
     * rows that check that a hold excludes others try to take it. A kind whose lock is shared
     * (the read lock of a read-write lock) returns one that excludes it (the write lock).
     *
     * @param client a client made by {@link #newClient()}
     * @param name the lock name
     * @return the rival lock
     */
    protected DistributedLock rival(LockClient client, String name) {
        return lock(client, name);
    }

    /** Makes Redis unreachable for this lock kind (e.g. kill -9 every server it uses). */
    protected abstract void killRedis();

    /** Undoes {@link #killRedis()}: the servers are back on the same addresses (their data may be gone). */
    protected abstract void restartRedis();

    /** Makes Redis unresponsive but connected (e.g. SIGSTOP every server it uses), so calls time out. */
    protected abstract void pauseRedis();

    /** Undoes {@link #pauseRedis()}: the servers go on with whatever they had received meanwhile. */
    protected abstract void resumeRedis();

    @BeforeEach
    void nameTheLock(TestInfo test) {
        name = "latchkey-test:" + getClass().getSimpleName() + ":"
                + test.getTestMethod().map(m -> m.getName()).orElse("unknown") + ":" + UUID.randomUUID();
    }

    @AfterEach
    void closeClientsAndThreads() {
        // Clients first: closing fails pending waits, which lets blocked owner threads end.
        clients.forEach(LockClient::close);
        clients.clear();
        ownerThreads.forEach(OwnerThread::close);
        ownerThreads.clear();
    }

    /** @return a client with the short test timings, closed after the test */
    protected final LockClient newClient() {
        return newClient(WATCHDOG_TIMEOUT, COMMAND_TIMEOUT);
    }

    /** @return a client with the given timings, closed after the test */
    protected final LockClient newClient(Duration watchdogTimeout, Duration commandTimeout) {
        LockConfig config = addresses(LockConfig.builder())
                .watchdogTimeout(watchdogTimeout)
                .commandTimeout(commandTimeout)
                .build();
        LockClient client = LockClient.create(config);
        clients.add(client);
        return client;
    }

    /**
     * @return a client for a holder that must keep the lock until the test releases it, however
     *     slow the machine: its lease outlasts any test, so a late renewal cannot lose the hold and
     *     only an unlock (or its message) can end it early
     */
    protected final LockClient newHolderClient() {
        return newClient(LONG_WATCHDOG_TIMEOUT, HOLDER_COMMAND_TIMEOUT);
    }

    /** @return a thread of its own for one holder or waiter, stopped after the test */
    protected final OwnerThread newOwnerThread(String role) {
        OwnerThread thread = new OwnerThread("contract-" + role);
        ownerThreads.add(thread);
        return thread;
    }

    /** @return an owner id for the async methods that no thread of this JVM has */
    protected static long newOwnerId() {
        return ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
    }

    /** @return Awaitility polling every 20 ms on the calling thread, for at most {@code atMost} */
    protected static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(POLL_INTERVAL).pollDelay(Duration.ZERO).pollInSameThread();
    }

    /**
     * Fails unless {@code condition} is seen true for a whole {@code period}; a loaded machine
     * gets some slack to evaluate it, but a condition that turns false for good always fails.
     */
    protected static void assertHoldsFor(Duration period, String what, Callable<Boolean> condition) {
        await(what).during(period).atMost(period.plus(MARGIN.multipliedBy(2)))
                .pollInterval(POLL_INTERVAL).pollDelay(Duration.ZERO).pollInSameThread()
                .until(condition);
    }

    /** Waits until {@code waiter} is parked inside its lock call, then checks that it stays there. */
    protected static void awaitWaiting(OwnerThread waiter, CountDownLatch started, Future<?> call) throws Exception {
        assertTrue(started.await(10, TimeUnit.SECONDS), "the waiter never started");
        within(Duration.ofSeconds(10)).until(waiter::isParked);
        assertHoldsFor(STILL_WAITING, "the waiter is still waiting", () -> !call.isDone());
    }

    protected static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static boolean isPositive(Duration duration) {
        return !duration.isZero() && !duration.isNegative();
    }

    private static Throwable causeOf(Future<?> future) throws Exception {
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> future.get(OwnerThread.TASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        return failure.getCause();
    }

    // ---------------------------------------------------------------------------------------
    // Watchdog lease: lock(), tryLock(wait), lockAsync()

    @Test
    void watchdogLeaseIsRenewedWhileHeldAndEndsAtTheLastUnlock() {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock observer = lock(newClient(), name);

        lock.lock();
        Duration lease = lock.remainingLease();
        assertTrue(isPositive(lease) && lease.compareTo(WATCHDOG_TIMEOUT) <= 0,
                "a watchdog hold starts with a lease of at most watchdogTimeout, got " + lease);

        assertHoldsFor(WATCHDOG_TIMEOUT.multipliedBy(2).plusMillis(300), "the renewed hold stays",
                () -> observer.isLocked() && isPositive(observer.remainingLease()));
        assertTrue(lock.isHeldByCurrentThread());
        assertFalse(rival(newClient(), name).tryLock(), "another client cannot take a renewed lock");

        lock.unlock();
        assertFalse(observer.isLocked(), "the last unlock frees the lock");
        assertEquals(Duration.ZERO, observer.remainingLease());
        assertEquals(0, lock.getHoldCount());
        // A renewal is due every watchdogTimeout / 3; none may bring the hold back.
        assertHoldsFor(WATCHDOG_TIMEOUT.dividedBy(2), "no renewal after the last unlock", () -> !observer.isLocked());
    }

    @Test
    @ClientSideRow
    void tryLockAndLockAsyncTakeRenewedWatchdogLeasesToo() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock asyncLock = lock(newClient(), name + ":async");
        DistributedLock observer = lock(newClient(), name);
        DistributedLock asyncObserver = lock(newClient(), name + ":async");
        long owner = newOwnerId();

        assertTrue(lock.tryLock(Duration.ofSeconds(1)));
        asyncLock.lockAsync(owner).get(5, TimeUnit.SECONDS);

        assertHoldsFor(WATCHDOG_TIMEOUT.plusMillis(500), "both holds are renewed",
                () -> observer.isLocked() && asyncObserver.isLocked());
        lock.unlock();
        asyncLock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertFalse(observer.isLocked());
        assertFalse(asyncObserver.isLocked());
    }

    @Test
    @ClientSideRow
    void closingTheClientStopsRenewalSoTheLeaseRunsOut() throws Exception {
        LockClient holderClient = newClient();
        DistributedLock held = lock(holderClient, name);
        LockClient otherClient = newClient();
        DistributedLock other = rival(otherClient, name);

        held.lock();
        holderClient.close();
        assertTrue(lock(otherClient, name).isLocked(), "close() releases nothing: the hold lasts until its lease runs out");

        long start = System.nanoTime();
        assertTrue(other.tryLock(WATCHDOG_TIMEOUT.multipliedBy(4)),
                "the closed client's lease was still renewed after close()");
        long waited = millisSince(start);
        assertTrue(waited < WATCHDOG_TIMEOUT.plus(MARGIN).toMillis(),
                "the lease should run out within watchdogTimeout of close(), took " + waited + " ms");
        other.unlock();
    }

    // ---------------------------------------------------------------------------------------
    // Fixed lease: lock(lease), tryLock(wait, lease)

    @Test
    void fixedLeaseRunsOutAndIsNeverRenewed() {
        DistributedLock lock = lock(newClient(), name);
        LockClient otherClient = newClient();
        DistributedLock other = lock(otherClient, name);
        Duration lease = Duration.ofMillis(300);

        long start = System.nanoTime();
        lock.lock(lease);
        Duration remaining = lock.remainingLease();
        // Zero only if the lease really ran out meanwhile (a loaded machine can take 300 ms).
        assertTrue((isPositive(remaining) || millisSince(start) >= lease.toMillis()) && remaining.compareTo(lease) <= 0,
                "the lease is the one asked for, got " + remaining + " after " + millisSince(start) + " ms");

        // A watchdog renewal (every 500 ms, back to 1500 ms) would keep the lock past this bound.
        within(WATCHDOG_TIMEOUT.minusMillis(300)).until(() -> !other.isLocked());
        long lasted = millisSince(start);
        assertTrue(lasted >= lease.toMillis() - 50, "the hold ended before its lease: " + lasted + " ms");

        DistributedLock rival = rival(otherClient, name);
        assertTrue(rival.tryLock(), "the expired lock is free for another client");
        assertThrows(IllegalMonitorStateException.class, lock::unlock,
                "the expired holder no longer owns the lock");
        assertTrue(rival.isHeldByCurrentThread());
        assertEquals(1, rival.getHoldCount());
        rival.unlock();
    }

    @Test
    @ClientSideRow
    void tryLockWithFixedLeaseRunsOut() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock other = lock(newClient(), name);

        assertTrue(lock.tryLock(Duration.ofSeconds(1), Duration.ofMillis(300)));
        within(WATCHDOG_TIMEOUT.minusMillis(300)).until(() -> !other.isLocked());
        assertTrue(other.tryLock());
        other.unlock();
    }

    // ---------------------------------------------------------------------------------------
    // Re-entry

    @Test
    void reentryIncrementsTheHoldCountAndNeedsAsManyUnlocks() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        DistributedLock other = lock(newClient(), name);

        lock.lock();
        assertTrue(lock.tryLock(Duration.ofSeconds(1)));
        lock.lock();
        assertEquals(3, lock.getHoldCount());

        lock.unlock();
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        assertEquals(1, lock.getHoldCount());
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(other.isLocked(), "one hold left keeps the lock");
        assertFalse(rival(newClient(), name).tryLock());

        lock.unlock();
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.isHeldByCurrentThread());
        assertFalse(other.isLocked());
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "one unlock too many");
    }

    @Test
    void reentryResetsTheLease() {
        DistributedLock lock = lock(newClient(), name);
        Duration lease = Duration.ofMillis(1000);

        lock.lock(lease);
        within(Duration.ofSeconds(2)).until(() -> lock.remainingLease().toMillis() < 600);
        lock.lock(lease);
        assertEquals(2, lock.getHoldCount());
        Duration reset = lock.remainingLease();
        assertTrue(reset.toMillis() > 800, "re-entry resets the lease, remaining " + reset);
        lock.unlock();
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    @ClientSideRow
    void twoLockObjectsOfOneNameShareTheHolds() {
        LockClient client = newHolderClient();
        DistributedLock first = lock(client, name);
        DistributedLock second = lock(client, name);

        first.lock();
        assertTrue(second.isHeldByCurrentThread());
        assertEquals(1, second.getHoldCount());
        second.lock();
        assertEquals(2, first.getHoldCount());
        second.unlock();
        first.unlock();
        assertFalse(first.isLocked());
        assertEquals(name, first.getName());
    }

    // ---------------------------------------------------------------------------------------
    // Unlock by a non-owner or of a free lock

    @Test
    void unlockByAnotherThreadThrowsAndKeepsTheLock() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        OwnerThread intruder = newOwnerThread("intruder");

        lock.lock();
        lock.lock();
        assertThrows(IllegalMonitorStateException.class, () -> intruder.run(lock::unlock));
        assertEquals(0, (int) intruder.call(lock::getHoldCount));

        assertTrue(lock.isLocked());
        assertTrue(lock.isHeldByCurrentThread());
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    void unlockByAnotherOwnerIdThrowsAndKeepsTheLock() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        long owner = newOwnerId();
        long stranger = newOwnerId();

        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        assertInstanceOf(IllegalMonitorStateException.class, causeOf(lock.unlockAsync(stranger)));
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "the calling thread is not the owner either");

        assertTrue(lock.isHeldBy(owner));
        assertFalse(lock.isHeldBy(stranger));
        // Still two holds: two unlocks release it, the second one frees it.
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertTrue(lock.isHeldBy(owner));
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertFalse(lock.isLocked());
    }

    @Test
    void unlockByTheSameOwnerIdOfAnotherClientThrowsAndKeepsTheLock() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        DistributedLock sameNameOtherClient = lock(newClient(), name);
        long owner = newOwnerId();

        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        assertInstanceOf(IllegalMonitorStateException.class, causeOf(sameNameOtherClient.unlockAsync(owner)),
                "owner ids are scoped to their client");
        assertFalse(sameNameOtherClient.isHeldBy(owner));
        assertTrue(lock.isHeldBy(owner));

        assertFalse(rival(newClient(), name).tryLock(), "the lock is still held");
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertFalse(lock.isLocked());
    }

    @Test
    void unlockOfAFreeLockThrowsAndLeavesNothingBehind() {
        DistributedLock lock = lock(newClient(), name);

        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertFalse(lock.isLocked());
        assertEquals(Duration.ZERO, lock.remainingLease());
        assertInstanceOf(IllegalMonitorStateException.class, assertThrows(ExecutionException.class,
                () -> lock.unlockAsync(newOwnerId()).get(5, TimeUnit.SECONDS)).getCause());
        assertFalse(lock.isLocked());
    }

    // ---------------------------------------------------------------------------------------
    // Waiting: woken by the unlock message; an expired lease is noticed without one

    @Test
    void waiterIsWokenByTheUnlockMessage() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");
        AtomicLong acquiredAt = new AtomicLong();
        CountDownLatch started = new CountDownLatch(1);

        held.lock();
        Future<Boolean> waiting = waiter.submit(() -> {
            started.countDown();
            boolean acquired = wanted.tryLock(Duration.ofSeconds(20));
            acquiredAt.set(System.nanoTime());
            if (acquired) {
                wanted.unlock();
            }
            return acquired;
        });
        awaitWaiting(waiter, started, waiting);

        // The lease has ~30 s left, so only the unlock message can wake the waiter this early.
        long unlockedAt = System.nanoTime();
        held.unlock();
        assertTrue(waiting.get(10, TimeUnit.SECONDS));
        long wakeUp = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - unlockedAt);
        assertTrue(wakeUp < MARGIN.toMillis(), "the waiter took " + wakeUp + " ms to notice the unlock");
    }

    @Test
    void waiterNoticesAnExpiredLeaseWithoutAMessage() throws Exception {
        DistributedLock held = rival(newClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        Duration lease = Duration.ofMillis(500);

        held.lock(lease); // and never unlocked: no message will come
        long start = System.nanoTime();
        assertTrue(wanted.tryLock(Duration.ofSeconds(5)), "the waiter never noticed the expired lease");
        long waited = millisSince(start);
        assertTrue(waited >= lease.toMillis() - 150, "acquired while the lease still ran: " + waited + " ms");
        assertTrue(waited < lease.plus(MARGIN).toMillis(), "expiry noticed late: " + waited + " ms");
        wanted.unlock();
    }

    // ---------------------------------------------------------------------------------------
    // tryLock(wait)

    @Test
    void tryLockReturnsFalseOnceTheWaitRunsOut() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);

        held.lock();
        long start = System.nanoTime();
        assertFalse(wanted.tryLock(Duration.ofMillis(300)));
        long waited = millisSince(start);
        assertTrue(waited >= 250, "gave up before the wait ran out: " + waited + " ms");
        assertTrue(waited < 2000, "gave up long after the wait ran out: " + waited + " ms");

        start = System.nanoTime();
        assertFalse(wanted.tryLock());
        assertFalse(wanted.tryLock(Duration.ZERO));
        assertFalse(wanted.tryLock(Duration.ofMillis(100), Duration.ofSeconds(5)));
        assertFalse(wanted.tryLock(100, TimeUnit.MILLISECONDS));
        assertTrue(millisSince(start) < 2000, "four short tries took " + millisSince(start) + " ms");

        assertFalse(wanted.isHeldByCurrentThread());
        assertEquals(0, wanted.getHoldCount());
        assertTrue(held.isHeldByCurrentThread());
        assertEquals(1, held.getHoldCount(), "failed tries leave the holder's count alone");
        held.unlock();
        assertFalse(held.isLocked(), "failed tries leave nothing behind");
    }

    @Test
    void tryLockAcquiresAFreeLockAtOnce() throws Exception {
        DistributedLock lock = lock(newClient(), name);

        long start = System.nanoTime();
        assertTrue(lock.tryLock(Duration.ofSeconds(5)));
        assertTrue(millisSince(start) < MARGIN.toMillis(), "a free lock took " + millisSince(start) + " ms");
        assertEquals(1, lock.getHoldCount());
        lock.unlock();

        assertTrue(lock.tryLock());
        lock.unlock();
        assertTrue(lock.tryLock(Duration.ZERO));
        lock.unlock();
        assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    @ClientSideRow
    void tryLockWithTheLongestTimeUnitWaitAcquiresAFreeLock() throws Exception {
        DistributedLock lock = lock(newClient(), name);

        // java.util.concurrent callers pass Long.MAX_VALUE for "as long as it takes".
        assertTrue(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS));
        assertTrue(lock.tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS));
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    @ClientSideRow
    void tryLockWithAZeroOrNegativeTimeUnitWaitTriesOnceWithoutThrowing() throws Exception {
        // java.util.concurrent.locks.Lock: "If the time is less than or equal to zero, the method
        // will not wait at all." Only the Duration overloads reject a negative wait.
        DistributedLock lock = lock(newClient(), name);
        assertTrue(lock.tryLock(-1, TimeUnit.MILLISECONDS), "a free lock is taken at once");
        lock.unlock();
        assertTrue(lock.tryLock(Long.MIN_VALUE, TimeUnit.DAYS), "a free lock is taken at once");
        lock.unlock();

        DistributedLock held = rival(newHolderClient(), name);
        held.lock();
        long start = System.nanoTime();
        assertFalse(lock.tryLock(-1, TimeUnit.SECONDS));
        assertFalse(lock.tryLock(Long.MIN_VALUE, TimeUnit.NANOSECONDS));
        assertFalse(lock.tryLock(0, TimeUnit.SECONDS));
        assertTrue(millisSince(start) < 2000, "three tries that do not wait took " + millisSince(start) + " ms");
        assertEquals(0, lock.getHoldCount());
        held.unlock();
        assertFalse(held.isLocked(), "the failed tries leave nothing behind");
    }

    // ---------------------------------------------------------------------------------------
    // Interrupts: lockInterruptibly and tryLock end the wait; lock() does not

    @Test
    @ClientSideRow
    void interruptedLockInterruptiblyThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    @Test
    @ClientSideRow
    void interruptedTryLockThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.tryLock(Duration.ofSeconds(20)));
    }

    @Test
    @ClientSideRow
    void interruptedTryLockWithLeaseThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(20)));
    }

    /** An acquire call that may be interrupted. */
    @FunctionalInterface
    protected interface InterruptibleAcquire {
        boolean acquire(DistributedLock lock) throws InterruptedException;
    }

    private void assertInterruptLeavesNoHold(InterruptibleAcquire acquire) throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock thirdParty = lock(newClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");
        CountDownLatch started = new CountDownLatch(1);

        held.lock();
        Future<Object> outcome = waiter.submit(() -> {
            started.countDown();
            try {
                return acquire.acquire(wanted);
            } catch (InterruptedException e) {
                return e;
            }
        });
        awaitWaiting(waiter, started, outcome);
        waiter.thread().interrupt();

        assertInstanceOf(InterruptedException.class, outcome.get(5, TimeUnit.SECONDS),
                "an interrupt ends the wait with InterruptedException");
        assertFalse(wanted.isHeldBy(waiter.id()));
        assertEquals(0, (int) waiter.call(wanted::getHoldCount));

        held.unlock();
        assertHoldsFor(Duration.ofMillis(500), "the interrupted waiter takes nothing later", () -> !thirdParty.isLocked());
        assertTrue(thirdParty.tryLock(), "a third party gets the lock at once");
        assertFalse(wanted.isHeldBy(waiter.id()));
        thirdParty.unlock();
    }

    /** What a waiter saw on return from lock(). */
    private record LockReturn(boolean interrupted, boolean held, int holdCount) {
    }

    @Test
    @ClientSideRow
    void lockIsNotInterruptibleAndReassertsTheInterrupt() throws Exception {
        assertNotInterruptible(lock -> {
            lock.lock();
            return lock::unlock;
        });
    }

    /** A blocking acquire that an interrupt must not end; returns how to release what it took. */
    @FunctionalInterface
    private interface UninterruptibleAcquire {
        OwnerThread.ThrowingRunnable acquire(DistributedLock lock);
    }

    private void assertNotInterruptible(UninterruptibleAcquire acquire) throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");
        CountDownLatch started = new CountDownLatch(1);

        held.lock();
        Future<LockReturn> returned = waiter.submit(() -> {
            started.countDown();
            OwnerThread.ThrowingRunnable release = acquire.acquire(wanted);
            boolean interrupted = Thread.interrupted(); // read and cleared before any other call
            LockReturn result = new LockReturn(interrupted, wanted.isHeldByCurrentThread(), wanted.getHoldCount());
            release.run();
            return result;
        });
        awaitWaiting(waiter, started, returned);
        waiter.thread().interrupt();
        assertHoldsFor(STILL_WAITING, "the acquire goes on waiting after an interrupt", () -> !returned.isDone());

        held.unlock();
        LockReturn result = returned.get(5, TimeUnit.SECONDS);
        assertTrue(result.held(), "the acquire returned without the lock");
        assertEquals(1, result.holdCount());
        assertTrue(result.interrupted(), "the acquire must re-assert the interrupt on return");
        assertFalse(held.isLocked());
    }

    // ---------------------------------------------------------------------------------------
    // Redis down

    @Test
    void redisDownFailsEveryCallWithLockConnectionExceptionAndTheClientRecovers() throws Exception {
        LockClient client = newClient();
        DistributedLock held = lock(client, name);
        List<DistributedLock> free = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            free.add(lock(client, name + ":free-" + i));
        }
        held.lock();

        killRedis();
        try {
            // First, while the hold's lease as last confirmed lasts: the acquires below each try
            // for the command timeout (a short outage), longer in all than the watchdog lease.
            assertFailsFast("unlock()", LockConnectionException.class, held::unlock);
            new FailingCalls(FAILS_FAST)
                    .expect("lock()", LockConnectionException.class, free.get(0)::lock)
                    .expect("lock(lease)", LockConnectionException.class, () -> free.get(1).lock(Duration.ofSeconds(5)))
                    .expect("lockInterruptibly()", LockConnectionException.class, free.get(2)::lockInterruptibly)
                    .expect("tryLock()", LockConnectionException.class, free.get(3)::tryLock)
                    // Must throw, not answer false: false would mean "held by someone else". A wait
                    // rides out a short outage for as long as it lasts, and at least the command
                    // timeout: one shorter than that throws once the command timeout is over.
                    .expect("tryLock(wait)", LockConnectionException.class, () -> free.get(4).tryLock(SHORTER_THAN_THE_COMMAND_TIMEOUT))
                    .expect("isLocked()", LockConnectionException.class, free.get(5)::isLocked)
                    .expect("forceUnlock()", LockConnectionException.class, free.get(6)::forceUnlock)
                    .expect("lockAsync()", LockConnectionException.class, () -> join(free.get(7).lockAsync()))
                    .expect("tryLockAsync(wait)", LockConnectionException.class,
                            () -> join(free.get(8).tryLockAsync(SHORTER_THAN_THE_COMMAND_TIMEOUT)))
                    .expect("LockClient.create", LockConnectionException.class, this::newClient)
                    .assertEachFailsFast();
        } finally {
            restartRedis();
        }

        DistributedLock after = lock(client, name + ":after");
        within(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockException.class).until(after::tryLock);
        assertTrue(after.isHeldByCurrentThread());
        after.unlock();
        assertFalse(after.isLocked());
        for (DistributedLock lock : free) {
            assertFalse(lock.isLocked(), lock.getName() + ": a call that failed with LockException left no hold");
        }
    }

    @Test
    void redisTooSlowFailsWithLockTimeoutExceptionWithinTheCommandTimeoutAndLeavesNoHoldBehind() throws Exception {
        LockClient client = newClient();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            locks.add(lock(client, name + ":" + i));
        }
        DistributedLock observer = lock(newClient(), name + ":0");
        locks.get(0).lock(); // scripts are cached in Redis from here on, as in any running application
        locks.get(0).unlock();

        pauseRedis();
        try {
            // Each acquire reaches Redis and would run there once it resumes: the caller got a
            // LockException, so whatever it would have taken must not outlive the failure.
            new FailingCalls(FAILS_FAST)
                    .expect("lock()", LockTimeoutException.class, locks.get(0)::lock)
                    .expect("lock(lease)", LockTimeoutException.class, () -> locks.get(1).lock(Duration.ofSeconds(30)))
                    .expect("tryLock(wait, lease)", LockTimeoutException.class,
                            () -> locks.get(2).tryLock(SHORTER_THAN_THE_COMMAND_TIMEOUT, Duration.ofSeconds(30)))
                    .expect("isLocked()", LockTimeoutException.class, locks.get(3)::isLocked)
                    .assertEachFailsFast();
        } finally {
            resumeRedis();
        }

        within(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(LockException.class).until(() -> observer.remainingLease() != null);
        LockClient observers = newClient();
        assertHoldsFor(Duration.ofMillis(500), "no hold may appear from an acquire that failed with LockException",
                () -> locks.stream().noneMatch(lock -> lock(observers, lock.getName()).isLocked()));
        for (DistributedLock lock : locks) {
            assertEquals(0, lock.getHoldCount());
        }
        assertTrue(locks.get(0).tryLock(), "the client works again once Redis answers");
        assertEquals(1, locks.get(0).getHoldCount());
        locks.get(0).unlock();
    }

    private static void join(CompletableFuture<?> future) throws Throwable {
        try {
            future.get(OwnerThread.TASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    /** How long a call may take to throw while Redis is down or too slow. */
    private static final Duration FAILS_FAST = COMMAND_TIMEOUT.multipliedBy(2).plus(MARGIN);

    private static void assertFailsFast(String call, Class<? extends LockException> type, Executable executable) {
        Duration bound = FAILS_FAST;
        long start = System.nanoTime();
        LockException failure = assertThrows(type, executable,
                call + " with Redis down must throw " + type.getSimpleName());
        long took = millisSince(start);
        assertNotNull(failure.getMessage(), call + ": a LockException says what failed");
        assertTrue(took < bound.toMillis(), call + " took " + took + " ms to fail, bound " + bound.toMillis());
    }

    // ---------------------------------------------------------------------------------------
    // Bad arguments

    @Test
    @ClientSideRow
    void nullNameIsRejected() {
        LockClient client = newClient();
        assertThrows(NullPointerException.class, () -> lock(client, null));
    }

    @Test
    @ClientSideRow
    void zeroNegativeOrAbsurdLeaseIsRejectedNamingTheArgument() {
        DistributedLock lock = lock(newClient(), name);
        Duration negative = Duration.ofMillis(-1);
        List<Executable> calls = new ArrayList<>();
        // Absurd leases once reached the scripts, which wrote the hold and then failed on PEXPIRE:
        // locked for ever (issue 27). A year at most.
        for (Duration lease : List.of(Duration.ZERO, negative, Duration.ofMillis(Long.MAX_VALUE),
                Duration.ofMillis(100_000_000_000_000_000L), Duration.ofSeconds(Long.MAX_VALUE), Duration.ofDays(366))) {
            calls.add(() -> lock.lock(lease));
            calls.add(() -> lock.lockInterruptibly(lease));
            calls.add(() -> lock.tryLock(Duration.ofSeconds(1), lease));
            calls.add(() -> lock.lockAsync(lease));
            calls.add(() -> lock.lockAsync(lease, newOwnerId()));
            calls.add(() -> lock.tryLockAsync(Duration.ofSeconds(1), lease));
            calls.add(() -> lock.tryLockAsync(Duration.ofSeconds(1), lease, newOwnerId()));
        }
        for (Executable call : calls) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
            assertTrue(e.getMessage() != null && e.getMessage().contains("leaseTime"),
                    "the message names the argument: " + e.getMessage());
        }
        assertFalse(lock.isLocked(), "a rejected call leaves nothing in Redis");
    }

    @Test
    @ClientSideRow
    void negativeWaitIsRejectedNamingTheArgument() {
        DistributedLock lock = lock(newClient(), name);
        Duration negative = Duration.ofMillis(-1);
        List<Executable> calls = List.of(
                () -> lock.tryLock(negative),
                () -> lock.tryLock(negative, Duration.ofSeconds(1)),
                () -> lock.tryLockAsync(negative),
                () -> lock.tryLockAsync(negative, Duration.ofSeconds(1)),
                () -> lock.tryLockAsync(negative, Duration.ofSeconds(1), newOwnerId()));
        for (Executable call : calls) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
            assertTrue(e.getMessage() != null && e.getMessage().contains("waitTime"),
                    "the message names the argument: " + e.getMessage());
        }
        assertFalse(lock.isLocked(), "a rejected call leaves nothing in Redis");
    }

    @Test
    @ClientSideRow
    void nullDurationsAreRejected() {
        DistributedLock lock = lock(newClient(), name);
        List<Executable> calls = List.of(
                () -> lock.lock(null),
                () -> lock.lockInterruptibly(null),
                () -> lock.tryLock(null),
                () -> lock.tryLock(null, Duration.ofSeconds(1)),
                () -> lock.tryLock(Duration.ofSeconds(1), null),
                () -> lock.lockAsync(null),
                () -> lock.lockAsync(null, newOwnerId()),
                () -> lock.tryLockAsync(null),
                () -> lock.tryLockAsync(null, Duration.ofSeconds(1)),
                () -> lock.tryLockAsync(Duration.ofSeconds(1), null),
                () -> lock.tryLockAsync(Duration.ofSeconds(1), null, newOwnerId()));
        for (Executable call : calls) {
            assertThrows(NullPointerException.class, call);
        }
        assertFalse(lock.isLocked(), "a rejected call leaves nothing in Redis");
    }

    // ---------------------------------------------------------------------------------------
    // Async API

    @Test
    void asyncHoldTakenOnOneThreadIsReleasedFromAnotherWithTheSameOwnerId() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        OwnerThread taker = newOwnerThread("taker");
        OwnerThread releaser = newOwnerThread("releaser");
        long owner = newOwnerId();

        taker.run(() -> lock.lockAsync(owner).get(5, TimeUnit.SECONDS));
        assertTrue(lock.isHeldBy(owner));
        assertTrue(lock.isLockedAsync().get(5, TimeUnit.SECONDS));
        assertFalse(lock.isHeldBy(taker.id()), "the hold belongs to the owner id, not the thread");
        assertEquals(0, lock.getHoldCount());

        releaser.run(() -> lock.unlockAsync(owner).get(5, TimeUnit.SECONDS));
        assertFalse(lock.isHeldBy(owner));
        assertFalse(lock.isLocked());
    }

    @Test
    @ClientSideRow
    void lockAsyncWithoutOwnerIdBelongsToTheCallingThread() throws Exception {
        DistributedLock lock = lock(newClient(), name);

        lock.lockAsync().get(5, TimeUnit.SECONDS);
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(lock.isHeldBy(Thread.currentThread().getId()));
        assertTrue(lock.tryLockAsync().get(5, TimeUnit.SECONDS), "re-entry through the async API");
        assertEquals(2, lock.getHoldCount());
        lock.unlockAsync().get(5, TimeUnit.SECONDS);
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    @ClientSideRow
    void cancellingAPendingLockAsyncLeavesNoHold() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock thirdParty = lock(newClient(), name);
        long owner = newOwnerId();

        held.lock();
        CompletableFuture<Void> pending = wanted.lockAsync(owner);
        assertHoldsFor(STILL_WAITING, "lockAsync waits while the lock is held", () -> !pending.isDone());
        assertTrue(pending.cancel(true));

        held.unlock();
        assertHoldsFor(Duration.ofMillis(500), "the cancelled acquire takes nothing later",
                () -> !thirdParty.isLocked() && !wanted.isHeldBy(owner));
        assertTrue(thirdParty.tryLock());
        assertFalse(wanted.isHeldBy(owner));
        thirdParty.unlock();
    }

    @Test
    @ClientSideRow
    void tryLockAsyncAnswersFalseWhenHeldAndTrueWhenFree() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        long owner = newOwnerId();

        held.lock();
        assertFalse(wanted.tryLockAsync().get(5, TimeUnit.SECONDS));
        long start = System.nanoTime();
        assertFalse(wanted.tryLockAsync(Duration.ofMillis(300)).get(5, TimeUnit.SECONDS));
        long waited = millisSince(start);
        assertTrue(waited >= 250 && waited < 2000, "tryLockAsync(300 ms) answered after " + waited + " ms");
        assertFalse(wanted.tryLockAsync(Duration.ofMillis(100), Duration.ofSeconds(5), owner).get(5, TimeUnit.SECONDS));
        assertFalse(wanted.isHeldBy(owner));
        assertEquals(1, held.getHoldCount());

        held.unlock();
        assertTrue(wanted.tryLockAsync(Duration.ofSeconds(1), Duration.ofSeconds(5), owner).get(5, TimeUnit.SECONDS));
        assertTrue(wanted.isHeldBy(owner));
        wanted.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertFalse(wanted.isLocked());
    }

    @Test
    @ClientSideRow
    void tryAcquireAsyncWithTheWatchdogLeaseEndsItsAttemptWhenTheWaitRunsOut() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock thirdParty = lock(newClient(), name);
        long owner = newOwnerId();

        held.lock();
        long start = System.nanoTime();
        assertEquals(Optional.empty(), wanted.tryAcquireAsync(Duration.ofMillis(300), owner).get(5, TimeUnit.SECONDS));
        long waited = millisSince(start);
        assertTrue(waited >= 250 && waited < 2000, "tryAcquireAsync(300 ms, owner) answered after " + waited + " ms");
        assertEquals(Optional.empty(), wanted.tryAcquireAsync(Duration.ZERO, owner).get(5, TimeUnit.SECONDS));

        held.unlock();
        // An attempt that went on past its wait would be woken by this unlock and take the lock.
        assertHoldsFor(Duration.ofMillis(500), "the attempts whose wait ran out take nothing later",
                () -> !thirdParty.isLocked() && !wanted.isHeldBy(owner));
        LockHold hold = wanted.tryAcquireAsync(Duration.ZERO, owner).get(5, TimeUnit.SECONDS).orElseThrow();
        assertTrue(wanted.isHeldBy(owner));
        hold.close();
        assertFalse(wanted.isLocked());
    }

    // ---------------------------------------------------------------------------------------
    // newCondition, forceUnlock, remainingLease

    @Test
    @ClientSideRow
    void newConditionIsUnsupported() {
        DistributedLock lock = lock(newClient(), name);
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
    }

    @Test
    void forceUnlockDeletesAHeldLockAndWakesAWaiter() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock operator = rival(newClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong acquiredAt = new AtomicLong();

        held.lock();
        Future<Boolean> waiting = waiter.submit(() -> {
            started.countDown();
            boolean acquired = wanted.tryLock(Duration.ofSeconds(20));
            acquiredAt.set(System.nanoTime());
            if (acquired) {
                release.await(10, TimeUnit.SECONDS);
                wanted.unlock();
            }
            return acquired;
        });
        awaitWaiting(waiter, started, waiting);

        long forcedAt = System.nanoTime();
        assertTrue(operator.forceUnlock(), "forceUnlock of a held lock answers true");
        within(Duration.ofSeconds(5)).until(() -> acquiredAt.get() != 0);
        long wakeUp = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - forcedAt);
        assertTrue(wakeUp < MARGIN.toMillis(), "the waiter took " + wakeUp + " ms to notice forceUnlock");
        assertTrue(wanted.isHeldBy(waiter.id()));
        assertThrows(IllegalMonitorStateException.class, held::unlock, "the evicted holder owns nothing");

        release.countDown();
        assertTrue(waiting.get(5, TimeUnit.SECONDS));
        assertFalse(operator.isLocked());
        assertFalse(operator.forceUnlock(), "forceUnlock of a free lock answers false");
        assertFalse(operator.forceUnlockAsync().get(5, TimeUnit.SECONDS));
    }

    @Test
    void remainingLeaseIsZeroWhenFree() {
        DistributedLock lock = lock(newClient(), name);
        assertEquals(Duration.ZERO, lock.remainingLease());
        lock.lock(Duration.ofSeconds(10));
        assertTrue(isPositive(lock.remainingLease()));
        lock.unlock();
        assertEquals(Duration.ZERO, lock.remainingLease());
    }

    // =======================================================================================
    // Holds (0.2): acquire*, tryAcquire*, LockHold, Lease, LeaseLostException
    //
    // API.md "Holds with fencing tokens and lease-loss notice", "Holds, precisely" and
    // "Remaining details". acquire is the same acquisition as lock() / tryLock(...), returned as
    // a handle: the rows above hold for it too, and these tests check what the handle adds.

    /**
     * How soon a holder learns that its watchdog hold vanished from Redis: one renewal period
     * plus one round trip, plus the usual slack.
     */
    protected static final Duration LOSS_NOTICE = WATCHDOG_TIMEOUT.dividedBy(3).plus(COMMAND_TIMEOUT).plus(MARGIN);

    /** A fixed lease that really runs out within a test. */
    private static final Duration SHORT_LEASE = Duration.ofMillis(300);

    /** @return a future of the {@link System#nanoTime()} at which {@code hold}'s lease was reported lost */
    private static CompletableFuture<Long> timeOfLoss(LockHold hold) {
        return hold.leaseLost().thenApply(ignored -> System.nanoTime());
    }

    /** Waits at most {@code atMost} for {@code lossAt}; returns how many ms after {@code sinceNanos} the loss was reported. */
    private static long millisToLoss(CompletableFuture<Long> lossAt, long sinceNanos, Duration atMost) throws Exception {
        try {
            return TimeUnit.NANOSECONDS.toMillis(lossAt.get(atMost.toMillis(), TimeUnit.MILLISECONDS) - sinceNanos);
        } catch (TimeoutException e) {
            return fail("leaseLost() did not complete within " + atMost.toMillis() + " ms");
        }
    }

    /**
     * Deletes the lock through {@code operator}, a lock of another client, and checks that the
     * holder of {@code hold} learns of it within {@link #LOSS_NOTICE}.
     */
    private static void forceLoss(LockHold hold, DistributedLock operator) throws Exception {
        CompletableFuture<Long> lossAt = timeOfLoss(hold);
        long forcedAt = System.nanoTime();
        assertTrue(operator.forceUnlock(), "the hold was in Redis");
        long took = millisToLoss(lossAt, forcedAt, LOSS_NOTICE.plus(MARGIN));
        assertTrue(took < LOSS_NOTICE.toMillis(),
                "the holder learnt of forceUnlock " + took + " ms later, bound " + LOSS_NOTICE.toMillis() + " ms");
        assertNull(hold.leaseLost().join(), "leaseLost() completes normally, with null");
        assertFalse(hold.isValid(), "a lost hold is not valid");
    }

    /**
     * The token the rows compare: a hold's fencing token. A lock kind whose holds have no token of
     * their own (the multi-lock's, whose parts have one each) maps a hold to a number that is
     * equal for the handles of one hold and greater for a later hold.
     *
     * @param hold a hold of the lock kind under test
     * @return its fencing token
     */
    protected long tokenOf(LockHold hold) {
        return hold.fencingToken();
    }

    /** Fails unless {@code later}, a hold that began after {@code earlier}, has the greater token. */
    private void assertGreaterToken(LockHold earlier, LockHold later) {
        assertTrue(tokenOf(later) > tokenOf(earlier), "a new hold's token exceeds the earlier hold's: "
                + tokenOf(later) + " after " + tokenOf(earlier));
    }

    /** Fails unless {@code call} throws an {@link IllegalMonitorStateException} that is not a {@link LeaseLostException}. */
    private static void assertNotHeldRatherThanLost(Executable call, String message) {
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, call, message);
        assertFalse(e instanceof LeaseLostException, message + ": nothing was held, so nothing was lost, yet " + e);
    }

    /** Fails unless every call throws {@code type} with a message that names {@code argument}. */
    private static void assertEachRejected(Class<? extends RuntimeException> type, String argument, List<Executable> calls) {
        for (Executable call : calls) {
            RuntimeException e = assertThrows(type, call);
            assertTrue(e.getMessage() != null && e.getMessage().contains(argument),
                    "the message names the argument " + argument + ": " + e.getMessage());
        }
    }

    // ---- what a hold is -------------------------------------------------------------------

    @Test
    void acquireTakesTheLockForTheCallingThreadAndReturnsItsHold() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock other = lock(newClient(), name);
        OwnerThread intruder = newOwnerThread("intruder");

        LockHold hold = lock.acquire();
        assertSame(lock, hold.lock(), "lock() is the lock object the hold was acquired on");
        assertEquals(Thread.currentThread().getId(), hold.ownerId(), "a blocking acquire's owner is the calling thread");
        assertEquals(List.of(hold), hold.parts());
        assertTrue(hold.fencingToken() > 0, "tokens are positive, got " + hold.fencingToken());
        assertTrue(hold.isValid());
        assertFalse(hold.leaseLost().isDone());
        assertTrue(lock.isHeldByCurrentThread());
        assertEquals(1, lock.getHoldCount());
        assertFalse(rival(newClient(), name).tryLock(), "the hold excludes other clients");
        assertNotHeldRatherThanLost(() -> intruder.run(lock::unlock), "another thread does not own the hold");
        assertTrue(hold.isValid());

        hold.close();
        assertFalse(hold.isValid(), "a closed handle is not valid");
        assertEquals(0, lock.getHoldCount());
        assertFalse(other.isLocked(), "close() of the only handle frees the lock");
        assertFalse(hold.leaseLost().isDone(), "a normal release is no loss");
    }

    @Test
    @ClientSideRow
    void everyWatchdogFormIsRenewedWhileHeldAndReleasedByClose() throws Exception {
        LockClient client = newClient();
        LockClient observers = newClient();
        List<String> names = List.of(name + ":acquire", name + ":interruptibly", name + ":try", name + ":async",
                name + ":try-async");
        long owner = newOwnerId();

        List<LockHold> holds = List.of(
                lock(client, names.get(0)).acquire(),
                lock(client, names.get(1)).acquireInterruptibly(),
                lock(client, names.get(2)).tryAcquire(Duration.ofSeconds(1)).orElseThrow(),
                lock(client, names.get(3)).acquireAsync(owner).get(5, TimeUnit.SECONDS),
                lock(client, names.get(4)).tryAcquireAsync(Duration.ofSeconds(1), owner).get(5, TimeUnit.SECONDS).orElseThrow());
        List<DistributedLock> observed = names.stream().map(n -> lock(observers, n)).toList();
        for (DistributedLock lock : observed) {
            Duration lease = lock.remainingLease();
            assertTrue(isPositive(lease) && lease.compareTo(WATCHDOG_TIMEOUT) <= 0,
                    lock.getName() + " starts with a lease of at most watchdogTimeout, got " + lease);
        }

        assertHoldsFor(WATCHDOG_TIMEOUT.multipliedBy(2).plusMillis(300), "every hold is renewed and stays valid",
                () -> observed.stream().allMatch(DistributedLock::isLocked)
                        && holds.stream().allMatch(h -> h.isValid() && !h.leaseLost().isDone()));

        holds.forEach(LockHold::close);
        for (DistributedLock lock : observed) {
            assertFalse(lock.isLocked(), lock.getName() + " is freed by close()");
        }
        assertHoldsFor(WATCHDOG_TIMEOUT.dividedBy(2), "no renewal after close()",
                () -> observed.stream().noneMatch(DistributedLock::isLocked));
    }

    @Test
    @ClientSideRow
    void reentryReturnsANewHandleOfTheSameHoldAndClosingItReleasesOneLevel() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        DistributedLock other = lock(newClient(), name);

        LockHold first = lock.acquire();
        LockHold second = lock.tryAcquire(Duration.ZERO).orElseThrow();
        LockHold third = lock.acquireInterruptibly();
        assertEquals(3, lock.getHoldCount());
        for (LockHold reentry : List.of(second, third)) {
            assertNotSame(first, reentry, "each re-entry returns a handle of its own");
            assertEquals(tokenOf(first), tokenOf(reentry), "a re-entry keeps the hold's token");
            assertSame(first.leaseLost(), reentry.leaseLost(), "every handle of one hold has the same leaseLost()");
            assertSame(lock, reentry.lock());
            assertEquals(first.ownerId(), reentry.ownerId());
        }
        assertNotSame(second, third);

        second.close();
        assertEquals(2, lock.getHoldCount(), "closing a re-entry's handle releases one level");
        assertFalse(second.isValid(), "the closed handle is invalid");
        assertTrue(first.isValid() && third.isValid(), "the hold's other handles stay valid");
        assertFalse(rival(newClient(), name).tryLock());

        second.close();
        assertEquals(2, lock.getHoldCount(), "a second close() of the same handle does nothing");
        assertTrue(first.isValid() && third.isValid());

        third.close();
        assertEquals(1, lock.getHoldCount());
        assertTrue(first.isValid());
        first.close();
        assertEquals(0, lock.getHoldCount());
        assertFalse(other.isLocked());
        assertFalse(first.isValid() || second.isValid() || third.isValid());
        assertFalse(first.leaseLost().isDone());
    }

    @Test
    @ClientSideRow
    void lockAndAcquireOfOneOwnerAreOneHold() {
        DistributedLock lock = lock(newHolderClient(), name);
        DistributedLock other = lock(newClient(), name);

        lock.lock();
        LockHold hold = lock.acquire();
        assertEquals(2, lock.getHoldCount(), "acquire() after lock() is a re-entry");
        hold.close();
        assertEquals(1, lock.getHoldCount());
        assertTrue(other.isLocked(), "the level taken by lock() still holds");
        lock.unlock();
        assertEquals(0, lock.getHoldCount());
        assertFalse(other.isLocked());

        LockHold first = lock.acquire();
        lock.lock();
        assertEquals(2, lock.getHoldCount(), "lock() after acquire() is a re-entry");
        assertEquals(tokenOf(first), tokenOf(lock.acquire()), "the third level is the same hold too");
        lock.unlock();
        lock.unlock();
        assertEquals(1, lock.getHoldCount());
        assertTrue(first.isValid(), "unlock() of the re-entries leaves the hold and its handle");
        first.close();
        assertEquals(0, lock.getHoldCount());
        assertFalse(other.isLocked());
    }

    @Test
    @ClientSideRow
    void closeAfterUnlockReleasedTheHoldThrowsIllegalMonitorStateThatIsNotLeaseLost() {
        DistributedLock lock = lock(newClient(), name);

        LockHold hold = lock.acquire();
        lock.unlock();
        assertFalse(lock.isLocked());
        assertFalse(hold.isValid(), "a hold released by unlock() is no longer valid");
        assertNotHeldRatherThanLost(hold::close, "close() of a hold that unlock() already released");
        assertFalse(hold.leaseLost().isDone(), "a release by unlock() is no loss");
        assertFalse(lock.isLocked());
    }

    @Test
    @ClientSideRow
    void holdsAreSharedByLockObjectsOfOneNameOnOneClient() {
        LockClient client = newHolderClient();
        DistributedLock first = lock(client, name);
        DistributedLock second = lock(client, name);

        LockHold hold = first.acquire();
        assertTrue(second.isHeldByCurrentThread());
        LockHold reentry = second.acquire();
        assertSame(second, reentry.lock(), "each handle names the lock object it was acquired on");
        assertSame(first, hold.lock());
        assertEquals(tokenOf(hold), tokenOf(reentry), "one hold across lock objects of one name");
        assertEquals(2, first.getHoldCount());
        reentry.close();
        assertEquals(1, second.getHoldCount());
        assertTrue(hold.isValid());

        lock(client, name).unlock(); // a fresh lock object releases what another one acquired
        assertFalse(first.isLocked());
        assertFalse(hold.isValid());

        lock(client, name).acquire();
        lock(client, name).unlock();
        assertFalse(first.isLocked());
    }

    @Test
    @ClientSideRow
    void completingOrCancellingLeaseLostFromOutsideChangesNothingAboutTheHold() {
        DistributedLock lock = lock(newClient(), name);

        LockHold hold = lock.acquire();
        hold.leaseLost().complete(null);
        hold.leaseLost().cancel(true);
        assertTrue(hold.isValid(), "only the client decides that a lease is lost");
        LockHold reentry = lock.acquire();
        assertEquals(tokenOf(hold), tokenOf(reentry), "the re-entry is not refused as lost");
        reentry.close();
        hold.close();
        assertFalse(lock.isLocked());
    }

    // ---- fencing tokens -------------------------------------------------------------------

    @Test
    void everyNewHoldOfTheNameGetsAGreaterFencingToken() throws Exception {
        DistributedLock one = lock(newHolderClient(), name);
        // The hold that one's forceUnlock takes from two below is known lost only at its next
        // renewal, and a local hand-off's or a multi-lock's next acquire on two waits for that:
        // the short test timings keep it to half a second rather than a third of 30 s. Every hold
        // of two is closed at once, so a late renewal under load has nothing to lose.
        DistributedLock two = lock(newClient(), name);
        List<Long> tokens = new ArrayList<>();

        LockHold hold = one.acquire();
        tokens.add(tokenOf(hold));
        hold.close();
        hold = one.acquire(); // the same owner again: a new hold
        tokens.add(tokenOf(hold));
        hold.close();
        tokens.add(newOwnerThread("second-owner").call(() -> {
            try (LockHold h = one.acquire(Duration.ofSeconds(10))) {
                return tokenOf(h);
            }
        }));
        long asyncOwner = newOwnerId();
        hold = two.acquireAsync(asyncOwner).get(5, TimeUnit.SECONDS); // another client
        tokens.add(tokenOf(hold));
        hold.close();
        hold = two.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(10), asyncOwner).get(5, TimeUnit.SECONDS).orElseThrow();
        tokens.add(tokenOf(hold));
        hold.close();
        hold = two.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        tokens.add(tokenOf(hold));
        hold.close();

        // forceUnlock deletes the lock while it is held; the next hold still gets a greater token.
        tokens.add(tokenOf(two.acquireAsync(newOwnerId()).get(5, TimeUnit.SECONDS)));
        assertTrue(one.forceUnlock());
        hold = one.acquire();
        tokens.add(tokenOf(hold));
        hold.close();

        // A lease that runs out takes the lock's key with it (a real TTL, short).
        tokens.add(tokenOf(one.acquireAsync(SHORT_LEASE, newOwnerId()).get(5, TimeUnit.SECONDS)));
        within(SHORT_LEASE.plus(MARGIN)).until(() -> !two.isLocked());
        hold = two.acquire();
        tokens.add(tokenOf(hold));
        hold.close();

        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i - 1) > 0 && tokens.get(i) > tokens.get(i - 1),
                    "each hold's token exceeds every earlier one: " + tokens);
        }
    }

    @Test
    void aWaitingAcquireIsWokenByTheReleaseAndItsHoldGetsAGreaterToken() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newHolderClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");
        CountDownLatch started = new CountDownLatch(1);
        AtomicLong acquiredAt = new AtomicLong();

        LockHold holding = held.acquire();
        Future<LockHold> waiting = waiter.submit(() -> {
            started.countDown();
            LockHold hold = wanted.acquire();
            acquiredAt.set(System.nanoTime());
            return hold;
        });
        awaitWaiting(waiter, started, waiting);

        // The holder's lease has ~30 s left: only the release's message can wake the waiter now.
        long releasedAt = System.nanoTime();
        holding.close();
        LockHold hold = waiting.get(10, TimeUnit.SECONDS);
        long wakeUp = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - releasedAt);
        assertTrue(wakeUp < MARGIN.toMillis(), "the waiter took " + wakeUp + " ms to notice close()");
        assertEquals(waiter.id(), hold.ownerId());
        assertSame(wanted, hold.lock());
        assertTrue(tokenOf(hold) > tokenOf(holding),
                "the waiter's hold began after the holder's: " + tokenOf(hold) + " vs " + tokenOf(holding));
        waiter.run(hold::close);
        assertFalse(held.isLocked());
    }

    // ---- tryAcquire and the async forms ---------------------------------------------------

    @Test
    @ClientSideRow
    void tryAcquireAnswersEmptyWhenHeldElsewhereForTheWholeWaitAndAHoldWhenFree() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        long owner = newOwnerId();

        LockHold holding = held.acquire();
        long start = System.nanoTime();
        assertEquals(Optional.empty(), wanted.tryAcquire(Duration.ofMillis(300)));
        long waited = millisSince(start);
        assertTrue(waited >= 250 && waited < 2000, "tryAcquire(300 ms) answered after " + waited + " ms");
        start = System.nanoTime();
        assertEquals(Optional.empty(), wanted.tryAcquireAsync(Duration.ofMillis(300), Duration.ofSeconds(5), owner)
                .get(5, TimeUnit.SECONDS));
        waited = millisSince(start);
        assertTrue(waited >= 250 && waited < 2000, "tryAcquireAsync(300 ms) answered after " + waited + " ms");
        assertEquals(Optional.empty(), wanted.tryAcquire(Duration.ZERO));
        assertEquals(Optional.empty(), wanted.tryAcquire(Duration.ofMillis(100), Duration.ofSeconds(5)));
        assertEquals(0, wanted.getHoldCount());
        assertFalse(wanted.isHeldBy(owner));
        assertEquals(1, held.getHoldCount(), "failed tries leave the holder's count alone");
        assertTrue(holding.isValid());
        holding.close();

        long freeAt = System.nanoTime();
        LockHold mine = wanted.tryAcquire(Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError("free, yet empty"));
        assertTrue(millisSince(freeAt) < MARGIN.toMillis(), "a free lock took " + millisSince(freeAt) + " ms");
        assertEquals(Thread.currentThread().getId(), mine.ownerId());
        assertGreaterToken(holding, mine);
        mine.close();

        LockHold theirs = wanted.tryAcquireAsync(Duration.ofSeconds(1), Duration.ofSeconds(5), owner)
                .get(5, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("free, yet empty"));
        assertEquals(owner, theirs.ownerId());
        assertTrue(wanted.isHeldBy(owner));
        Duration lease = wanted.remainingLease();
        assertTrue(isPositive(lease) && lease.compareTo(Duration.ofSeconds(5)) <= 0, "the fixed lease asked for, got " + lease);
        theirs.close();

        LockHold fixed = wanted.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).orElseThrow();
        lease = wanted.remainingLease();
        assertTrue(isPositive(lease) && lease.compareTo(Duration.ofSeconds(5)) <= 0, "the fixed lease asked for, got " + lease);
        fixed.close();
        assertFalse(held.isLocked());
    }

    @Test
    @ClientSideRow
    void asyncHoldsBelongToTheGivenOwnerAndAreClosedFromAnyThread() throws Exception {
        DistributedLock lock = lock(newHolderClient(), name);
        OwnerThread taker = newOwnerThread("taker");
        OwnerThread closer = newOwnerThread("closer");
        long owner = newOwnerId();

        LockHold hold = taker.call(() -> lock.acquireAsync(owner).get(5, TimeUnit.SECONDS));
        assertEquals(owner, hold.ownerId());
        assertSame(lock, hold.lock());
        assertEquals(List.of(hold), hold.parts());
        assertTrue(hold.fencingToken() > 0);
        assertTrue(lock.isHeldBy(owner));
        assertFalse(lock.isHeldBy(taker.id()), "the hold belongs to the owner id, not the thread");

        LockHold fixed = lock.acquireAsync(Duration.ofSeconds(10), owner).get(5, TimeUnit.SECONDS);
        LockHold tried = lock.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(10), owner).get(5, TimeUnit.SECONDS).orElseThrow();
        for (LockHold reentry : List.of(fixed, tried)) {
            assertEquals(owner, reentry.ownerId());
            assertEquals(tokenOf(hold), tokenOf(reentry), "re-entries of the owner are the same hold");
        }

        closer.run(fixed::close);
        closer.run(tried::close);
        assertTrue(lock.isHeldBy(owner));
        assertTrue(hold.isValid());
        closer.run(hold::close);
        assertFalse(lock.isLocked());
        assertFalse(hold.isValid());
    }

    @Test
    @ClientSideRow
    void cancellingAPendingAcquireAsyncLeavesNoHold() throws Exception {
        DistributedLock held = rival(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock thirdParty = lock(newClient(), name);
        long[] owners = {newOwnerId(), newOwnerId(), newOwnerId()};

        LockHold holding = held.acquire();
        List<CompletableFuture<?>> pending = List.of(
                wanted.acquireAsync(owners[0]),
                wanted.acquireAsync(Duration.ofSeconds(10), owners[1]),
                wanted.tryAcquireAsync(Duration.ofSeconds(20), Duration.ofSeconds(10), owners[2]));
        assertHoldsFor(STILL_WAITING, "the acquires wait while the lock is held",
                () -> pending.stream().noneMatch(CompletableFuture::isDone));
        for (CompletableFuture<?> acquire : pending) {
            assertTrue(acquire.cancel(true));
        }

        holding.close();
        assertHoldsFor(Duration.ofMillis(500), "the cancelled acquires take nothing later",
                () -> !thirdParty.isLocked() && Arrays.stream(owners).noneMatch(wanted::isHeldBy));
        assertTrue(thirdParty.tryLock());
        thirdParty.unlock();
    }

    // ---- interrupts -----------------------------------------------------------------------

    @Test
    @ClientSideRow
    void interruptedAcquireInterruptiblyThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.acquireInterruptibly() != null);
    }

    @Test
    @ClientSideRow
    void interruptedTryAcquireThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.tryAcquire(Duration.ofSeconds(20)).isPresent());
    }

    @Test
    @ClientSideRow
    void interruptedTryAcquireWithLeaseThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.tryAcquire(Duration.ofSeconds(20), Duration.ofSeconds(20)).isPresent());
    }

    @Test
    @ClientSideRow
    void acquireIsNotInterruptibleAndReassertsTheInterrupt() throws Exception {
        assertNotInterruptible(lock -> lock.acquire()::close);
        assertNotInterruptible(lock -> lock.acquire(Duration.ofSeconds(20))::close);
    }

    // ---- lease loss -----------------------------------------------------------------------

    @Test
    void forceUnlockByAnotherClientIsReportedAsALossAndTheNextUnlockThrowsLeaseLostAndEndsTheHold() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock operator = lock(newHolderClient(), name);

        LockHold hold = lock.acquire();
        lock.lock(); // a re-entry, which the loss ends with the hold
        forceLoss(hold, operator);

        LockHold next = operator.acquire(); // someone else holds the lock meanwhile
        assertGreaterToken(hold, next);
        assertFalse(hold.isValid(), "a lost hold stays invalid");
        assertThrows(LeaseLostException.class, lock::unlock, "unlock() of a lost hold says it was lost");
        assertEquals(0, lock.getHoldCount(), "the LeaseLostException ended the hold with all its re-entries");
        assertNotHeldRatherThanLost(lock::unlock, "after the loss was reported, the hold is over");
        assertTrue(operator.isHeldByCurrentThread(), "the lost holder's unlock() left the new hold alone");
        assertTrue(next.isValid());
        next.close();

        LockHold fresh = lock.acquire();
        assertEquals(1, lock.getHoldCount(), "the owner's next acquire is a new hold");
        assertGreaterToken(next, fresh);
        assertTrue(fresh.isValid());
        assertFalse(fresh.leaseLost().isDone(), "the new hold has a lease-loss notice of its own");
        assertFalse(hold.isValid(), "the new hold does not revive the lost one's handle");
        fresh.close();
        assertFalse(operator.isLocked());
    }

    @Test
    @ClientSideRow
    void closeOfALostHoldThrowsLeaseLostOnceEndsTheHoldAndASecondCloseDoesNothing() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock operator = lock(newClient(), name);

        LockHold hold = lock.acquire();
        LockHold reentry = lock.acquire();
        forceLoss(hold, operator);
        assertFalse(reentry.isValid(), "every handle of a lost hold is invalid");

        assertThrows(LeaseLostException.class, reentry::close);
        assertDoesNotThrow(reentry::close, "a second close() of the same handle does nothing");
        assertEquals(0, lock.getHoldCount());
        assertNotHeldRatherThanLost(lock::unlock, "the LeaseLostException of close() ended the hold with all its re-entries");

        LockHold fresh = lock.acquire();
        assertEquals(1, lock.getHoldCount(), "the owner's next acquire is a new hold");
        assertGreaterToken(hold, fresh);
        assertNotSame(hold.leaseLost(), fresh.leaseLost());
        assertFalse(fresh.leaseLost().isDone());
        fresh.close();
        assertFalse(operator.isLocked());
    }

    @Test
    @ClientSideRow
    void reentryOfAnOwnerWhoseLeaseIsLostThrowsLeaseLostAndLeavesTheHoldToItsRelease() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock operator = lock(newClient(), name);

        LockHold hold = lock.acquire();
        forceLoss(hold, operator);
        assertThrows(LeaseLostException.class, lock::acquire);
        assertThrows(LeaseLostException.class, lock::lock);
        assertThrows(LeaseLostException.class, () -> lock.tryAcquire(Duration.ZERO));
        assertFalse(operator.isLocked(), "a refused re-entry takes nothing");

        assertThrows(LeaseLostException.class, hold::close, "the refused re-entries did not end the hold");
        LockHold fresh = lock.acquire();
        assertGreaterToken(hold, fresh);
        assertEquals(1, lock.getHoldCount());
        fresh.close();
        assertFalse(operator.isLocked());
    }

    @Test
    @ClientSideRow
    void asyncReentryAndUnlockOfAnOwnerWhoseLeaseIsLostFailWithLeaseLost() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock operator = lock(newClient(), name);
        long owner = newOwnerId();

        LockHold hold = lock.acquireAsync(owner).get(5, TimeUnit.SECONDS);
        forceLoss(hold, operator);
        assertInstanceOf(LeaseLostException.class, causeOf(lock.acquireAsync(owner)));
        assertInstanceOf(LeaseLostException.class, causeOf(lock.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(5), owner)));
        assertFalse(operator.isLocked(), "a refused re-entry takes nothing");

        assertInstanceOf(LeaseLostException.class, causeOf(lock.unlockAsync(owner)), "the refused re-entries did not end the hold");
        Throwable after = causeOf(lock.unlockAsync(owner));
        assertInstanceOf(IllegalMonitorStateException.class, after);
        assertFalse(after instanceof LeaseLostException, "the unlock that said \"lost\" ended the hold, yet " + after);

        LockHold fresh = lock.acquireAsync(owner).get(5, TimeUnit.SECONDS);
        assertGreaterToken(hold, fresh);
        fresh.close();
        assertFalse(operator.isLocked());
    }

    @Test
    void fixedLeaseThatRunsOutWhileHeldIsReportedLostAtItsEnd() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock observer = lock(newClient(), name);

        long start = System.nanoTime();
        LockHold hold = lock.acquire(SHORT_LEASE);
        long acquiredAt = System.nanoTime();
        CompletableFuture<Long> lossAt = timeOfLoss(hold);
        Duration lease = lock.remainingLease();
        assertTrue(isPositive(lease) && lease.compareTo(SHORT_LEASE) <= 0, "the lease asked for, got " + lease);
        assertEquals(Thread.currentThread().getId(), hold.ownerId());

        long lost = millisToLoss(lossAt, start, SHORT_LEASE.plus(MARGIN.multipliedBy(2)));
        assertTrue(lost >= SHORT_LEASE.toMillis() - 50, "reported lost " + lost + " ms into a " + SHORT_LEASE.toMillis() + " ms lease");
        long late = TimeUnit.NANOSECONDS.toMillis(lossAt.get() - acquiredAt);
        assertTrue(late < SHORT_LEASE.plus(MARGIN).toMillis(), "reported lost " + late + " ms after a " + SHORT_LEASE.toMillis() + " ms lease began");
        assertNull(hold.leaseLost().join());
        assertFalse(hold.isValid());
        within(MARGIN).until(() -> !observer.isLocked()); // a fixed lease is never renewed

        assertThrows(LeaseLostException.class, hold::close);
        assertDoesNotThrow(hold::close, "a second close() of the same handle does nothing");
        assertEquals(0, lock.getHoldCount());
        LockHold fresh = lock.acquire(SHORT_LEASE.multipliedBy(10));
        assertGreaterToken(hold, fresh);
        fresh.close();
        assertFalse(fresh.leaseLost().isDone());
    }

    @Test
    @ClientSideRow
    void everyFixedLeaseFormIsReportedLostWhenItRunsOutAndItsReleaseThrowsLeaseLost() throws Exception {
        LockClient client = newClient();
        DistributedLock tried = lock(client, name + ":try");
        DistributedLock async = lock(client, name + ":async");
        DistributedLock asyncTried = lock(client, name + ":async-try");
        long owner = newOwnerId();

        long start = System.nanoTime();
        List<LockHold> holds = List.of(
                tried.tryAcquire(Duration.ofSeconds(1), SHORT_LEASE).orElseThrow(),
                async.acquireAsync(SHORT_LEASE, owner).get(5, TimeUnit.SECONDS),
                asyncTried.tryAcquireAsync(Duration.ofSeconds(1), SHORT_LEASE, owner).get(5, TimeUnit.SECONDS).orElseThrow());
        List<CompletableFuture<Long>> losses = holds.stream().map(DistributedLockContract::timeOfLoss).toList();
        for (CompletableFuture<Long> loss : losses) {
            long lost = millisToLoss(loss, start, SHORT_LEASE.plus(MARGIN.multipliedBy(2)));
            assertTrue(lost >= SHORT_LEASE.toMillis() - 50, "reported lost " + lost + " ms into the lease");
            assertTrue(lost < SHORT_LEASE.plus(MARGIN).toMillis(), "reported lost " + lost + " ms after the lease began");
        }
        assertTrue(holds.stream().noneMatch(LockHold::isValid));

        assertThrows(LeaseLostException.class, tried::unlock);
        assertNotHeldRatherThanLost(tried::unlock, "the unlock that said \"lost\" ended the hold");
        assertInstanceOf(LeaseLostException.class, causeOf(async.unlockAsync(owner)));
        assertThrows(LeaseLostException.class, holds.get(2)::close);
        assertDoesNotThrow(holds.get(2)::close);
        assertFalse(asyncTried.isHeldBy(owner));
    }

    @Test
    @ClientSideRow
    void leaseLostNeverCompletesAfterANormalRelease() throws Exception {
        LockClient client = newClient();
        DistributedLock watchdog = lock(client, name + ":watchdog");
        DistributedLock fixed = lock(client, name + ":fixed");
        DistributedLock async = lock(client, name + ":async");
        long owner = newOwnerId();

        List<LockHold> holds = List.of(
                watchdog.acquire(),
                fixed.acquire(SHORT_LEASE),
                async.acquireAsync(SHORT_LEASE, owner).get(5, TimeUnit.SECONDS));
        watchdog.unlock();
        holds.get(1).close();
        async.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertTrue(holds.stream().noneMatch(LockHold::isValid), "released holds are not valid");

        // Past the end the fixed leases would have had, and past three renewal periods.
        assertHoldsFor(WATCHDOG_TIMEOUT, "no loss is reported after a normal release",
                () -> holds.stream().noneMatch(h -> h.leaseLost().isDone()));
    }

    @Test
    void leaseIsReportedLostWhenRedisStaysUnreachableForTheRestOfIt() throws Exception {
        DistributedLock lock = lock(newClient(), name);

        LockHold hold = lock.acquire();
        // Let the renewals run for a while, so the loss below is the pause's, not the first lease's.
        assertHoldsFor(WATCHDOG_TIMEOUT.dividedBy(2), "the hold is valid", hold::isValid);
        CompletableFuture<Long> lossAt = timeOfLoss(hold);
        long pausedAt = System.nanoTime();
        pauseRedis();
        try {
            // The lease as last confirmed has at least watchdogTimeout - one renewal period left.
            assertHoldsFor(Duration.ofMillis(400), "no loss while the confirmed lease still runs",
                    () -> !hold.leaseLost().isDone());
            long lost = millisToLoss(lossAt, pausedAt, WATCHDOG_TIMEOUT.plus(MARGIN.multipliedBy(2)));
            assertTrue(lost < WATCHDOG_TIMEOUT.plus(MARGIN).toMillis(),
                    "reported lost " + lost + " ms after Redis stopped answering, lease " + WATCHDOG_TIMEOUT.toMillis() + " ms");
            assertFalse(hold.isValid());
        } finally {
            resumeRedis();
        }
        assertThrows(LeaseLostException.class, hold::close);
        assertDoesNotThrow(hold::close);
    }

    // ---- Redis down, bad arguments --------------------------------------------------------

    @Test
    @ClientSideRow
    void redisDownFailsEveryAcquireWithLockConnectionExceptionAndLeavesNoHold() throws Exception {
        LockClient client = newClient();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            locks.add(lock(client, name + ":" + i));
        }
        long owner = newOwnerId();

        killRedis();
        try {
            new FailingCalls(FAILS_FAST)
                    .expect("acquire()", LockConnectionException.class, locks.get(0)::acquire)
                    .expect("acquire(lease)", LockConnectionException.class, () -> locks.get(1).acquire(Duration.ofSeconds(5)))
                    .expect("acquireInterruptibly()", LockConnectionException.class, locks.get(2)::acquireInterruptibly)
                    // Must throw, not answer empty: empty would mean "held by someone else".
                    .expect("tryAcquire(wait)", LockConnectionException.class,
                            () -> locks.get(3).tryAcquire(SHORTER_THAN_THE_COMMAND_TIMEOUT))
                    .expect("tryAcquire(wait, lease)", LockConnectionException.class,
                            () -> locks.get(4).tryAcquire(SHORTER_THAN_THE_COMMAND_TIMEOUT, Duration.ofSeconds(5)))
                    .expect("acquireAsync(owner)", LockConnectionException.class, () -> join(locks.get(5).acquireAsync(owner)))
                    .expect("acquireAsync(lease, owner)", LockConnectionException.class,
                            () -> join(locks.get(6).acquireAsync(Duration.ofSeconds(5), owner)))
                    .expect("tryAcquireAsync(wait, lease, owner)", LockConnectionException.class,
                            () -> join(locks.get(7).tryAcquireAsync(SHORTER_THAN_THE_COMMAND_TIMEOUT, Duration.ofSeconds(5), owner)))
                    .assertEachFailsFast();
        } finally {
            restartRedis();
        }

        for (DistributedLock lock : locks) {
            Optional<LockHold> after = within(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockException.class)
                    .until(() -> lock.tryAcquire(Duration.ZERO), Optional::isPresent);
            assertEquals(1, lock.getHoldCount(), lock.getName() + ": the failed acquire left no hold behind: this is a first acquisition");
            assertFalse(lock.isHeldBy(owner));
            after.orElseThrow().close();
            assertFalse(lock.isLocked());
        }
    }

    @Test
    @ClientSideRow
    void redisTooSlowFailsAcquireWithLockTimeoutExceptionAndLeavesNoHoldBehind() throws Exception {
        LockClient client = newClient();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            locks.add(lock(client, name + ":" + i));
        }
        LockClient observers = newClient();
        long owner = newOwnerId();
        locks.get(0).acquire().close(); // scripts are cached in Redis from here on, as in any running application

        pauseRedis();
        try {
            // Each acquire reaches Redis and would run there once it resumes: the caller got a
            // LockException, so whatever it would have taken must not outlive the failure.
            new FailingCalls(FAILS_FAST)
                    .expect("acquire()", LockTimeoutException.class, locks.get(0)::acquire)
                    .expect("acquire(lease)", LockTimeoutException.class, () -> locks.get(1).acquire(Duration.ofSeconds(30)))
                    .expect("tryAcquire(wait, lease)", LockTimeoutException.class,
                            () -> locks.get(2).tryAcquire(SHORTER_THAN_THE_COMMAND_TIMEOUT, Duration.ofSeconds(30)))
                    .expect("acquireAsync(lease, owner)", LockTimeoutException.class,
                            () -> join(locks.get(3).acquireAsync(Duration.ofSeconds(30), owner)))
                    .assertEachFailsFast();
        } finally {
            resumeRedis();
        }

        DistributedLock first = lock(observers, locks.get(0).getName());
        within(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(LockException.class).until(() -> first.remainingLease() != null);
        assertHoldsFor(Duration.ofMillis(500), "no hold may appear from an acquire that failed with LockException",
                () -> locks.stream().noneMatch(lock -> lock(observers, lock.getName()).isLocked()));
        for (DistributedLock lock : locks) {
            assertEquals(0, lock.getHoldCount());
            assertFalse(lock.isHeldBy(owner));
        }
        try (LockHold hold = locks.get(0).acquire()) {
            assertEquals(1, locks.get(0).getHoldCount(), "the client works again once Redis answers, with a new hold");
            assertTrue(hold.isValid());
        }
    }

    @Test
    @ClientSideRow
    void holdMethodsRejectAZeroOrNegativeLeaseNamingIt() {
        DistributedLock lock = lock(newClient(), name);
        List<Executable> calls = new ArrayList<>();
        for (Duration lease : List.of(Duration.ZERO, Duration.ofMillis(-1))) {
            calls.add(() -> lock.acquire(lease));
            calls.add(() -> lock.tryAcquire(Duration.ofSeconds(1), lease));
            calls.add(() -> lock.acquireAsync(lease, newOwnerId()));
            calls.add(() -> lock.tryAcquireAsync(Duration.ofSeconds(1), lease, newOwnerId()));
        }
        assertEachRejected(IllegalArgumentException.class, "leaseTime", calls);
        assertFalse(lock.isLocked(), "a rejected call leaves nothing in Redis");
    }

    @Test
    @ClientSideRow
    void holdMethodsRejectANegativeWaitNamingIt() {
        DistributedLock lock = lock(newClient(), name);
        Duration negative = Duration.ofMillis(-1);
        assertEachRejected(IllegalArgumentException.class, "waitTime", List.of(
                () -> lock.tryAcquire(negative),
                () -> lock.tryAcquire(negative, Duration.ofSeconds(1)),
                () -> lock.tryAcquireAsync(negative, Duration.ofSeconds(1), newOwnerId())));
        assertFalse(lock.isLocked(), "a rejected call leaves nothing in Redis");
    }

    @Test
    @ClientSideRow
    void holdMethodsRejectNullDurationsNamingThem() {
        DistributedLock lock = lock(newClient(), name);
        assertEachRejected(NullPointerException.class, "leaseTime", List.of(
                () -> lock.acquire(null),
                () -> lock.tryAcquire(Duration.ofSeconds(1), null),
                () -> lock.acquireAsync(null, newOwnerId()),
                () -> lock.tryAcquireAsync(Duration.ofSeconds(1), null, newOwnerId())));
        assertEachRejected(NullPointerException.class, "waitTime", List.of(
                () -> lock.tryAcquire(null),
                () -> lock.tryAcquire(null, Duration.ofSeconds(1)),
                () -> lock.tryAcquireAsync(null, Duration.ofSeconds(1), newOwnerId())));
        assertFalse(lock.isLocked(), "a rejected call leaves nothing in Redis");
    }
}
