package io.latchkey.contract;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
 * through the public API only, so the same assertions hold for the plain, fair and Red lock.
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
        assertFalse(observer.tryLock(), "another client cannot take a renewed lock");

        lock.unlock();
        assertFalse(observer.isLocked(), "the last unlock frees the lock");
        assertEquals(Duration.ZERO, observer.remainingLease());
        assertEquals(0, lock.getHoldCount());
        // A renewal is due every watchdogTimeout / 3; none may bring the hold back.
        assertHoldsFor(WATCHDOG_TIMEOUT.dividedBy(2), "no renewal after the last unlock", () -> !observer.isLocked());
    }

    @Test
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
    void closingTheClientStopsRenewalSoTheLeaseRunsOut() throws Exception {
        LockClient holderClient = newClient();
        DistributedLock held = lock(holderClient, name);
        DistributedLock other = lock(newClient(), name);

        held.lock();
        holderClient.close();
        assertTrue(other.isLocked(), "close() releases nothing: the hold lasts until its lease runs out");

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
        DistributedLock other = lock(newClient(), name);
        Duration lease = Duration.ofMillis(300);

        long start = System.nanoTime();
        lock.lock(lease);
        Duration remaining = lock.remainingLease();
        assertTrue(isPositive(remaining) && remaining.compareTo(lease) <= 0,
                "the lease is the one asked for, got " + remaining);

        // A watchdog renewal (every 500 ms, back to 1500 ms) would keep the lock past this bound.
        within(WATCHDOG_TIMEOUT.minusMillis(300)).until(() -> !other.isLocked());
        long lasted = millisSince(start);
        assertTrue(lasted >= lease.toMillis() - 50, "the hold ended before its lease: " + lasted + " ms");

        assertTrue(other.tryLock(), "the expired lock is free for another client");
        assertThrows(IllegalMonitorStateException.class, lock::unlock,
                "the expired holder no longer owns the lock");
        assertTrue(other.isHeldByCurrentThread());
        assertEquals(1, other.getHoldCount());
        other.unlock();
    }

    @Test
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
        assertFalse(other.tryLock());

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

        assertFalse(sameNameOtherClient.tryLock(), "the lock is still held");
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
        DistributedLock held = lock(newHolderClient(), name);
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
        DistributedLock held = lock(newClient(), name);
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
        DistributedLock held = lock(newHolderClient(), name);
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
    void tryLockWithAZeroOrNegativeTimeUnitWaitTriesOnceWithoutThrowing() throws Exception {
        // java.util.concurrent.locks.Lock: "If the time is less than or equal to zero, the method
        // will not wait at all." Only the Duration overloads reject a negative wait.
        DistributedLock lock = lock(newClient(), name);
        assertTrue(lock.tryLock(-1, TimeUnit.MILLISECONDS), "a free lock is taken at once");
        lock.unlock();
        assertTrue(lock.tryLock(Long.MIN_VALUE, TimeUnit.DAYS), "a free lock is taken at once");
        lock.unlock();

        DistributedLock held = lock(newHolderClient(), name);
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
    void interruptedLockInterruptiblyThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    @Test
    void interruptedTryLockThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.tryLock(Duration.ofSeconds(20)));
    }

    @Test
    void interruptedTryLockWithLeaseThrowsAndLeavesNoHold() throws Exception {
        assertInterruptLeavesNoHold(lock -> lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(20)));
    }

    /** An acquire call that may be interrupted. */
    @FunctionalInterface
    protected interface InterruptibleAcquire {
        boolean acquire(DistributedLock lock) throws InterruptedException;
    }

    private void assertInterruptLeavesNoHold(InterruptibleAcquire acquire) throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
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
    void lockIsNotInterruptibleAndReassertsTheInterrupt() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");
        CountDownLatch started = new CountDownLatch(1);

        held.lock();
        Future<LockReturn> returned = waiter.submit(() -> {
            started.countDown();
            wanted.lock();
            boolean interrupted = Thread.interrupted(); // read and cleared before any other call
            LockReturn result = new LockReturn(interrupted, wanted.isHeldByCurrentThread(), wanted.getHoldCount());
            wanted.unlock();
            return result;
        });
        awaitWaiting(waiter, started, returned);
        waiter.thread().interrupt();
        assertHoldsFor(STILL_WAITING, "lock() goes on waiting after an interrupt", () -> !returned.isDone());

        held.unlock();
        LockReturn result = returned.get(5, TimeUnit.SECONDS);
        assertTrue(result.held(), "lock() returned without the lock");
        assertEquals(1, result.holdCount());
        assertTrue(result.interrupted(), "lock() must re-assert the interrupt on return");
        assertFalse(held.isLocked());
    }

    // ---------------------------------------------------------------------------------------
    // Redis down

    @Test
    void redisDownFailsEveryCallWithLockConnectionExceptionAndTheClientRecovers() throws Exception {
        LockClient client = newClient();
        DistributedLock held = lock(client, name);
        DistributedLock free = lock(client, name + ":free");
        held.lock();

        killRedis();
        try {
            assertFailsFast("lock()", LockConnectionException.class, free::lock);
            assertFailsFast("lock(lease)", LockConnectionException.class, () -> free.lock(Duration.ofSeconds(5)));
            assertFailsFast("lockInterruptibly()", LockConnectionException.class, free::lockInterruptibly);
            assertFailsFast("tryLock()", LockConnectionException.class, free::tryLock);
            // Must throw, not answer false: false would mean "held by someone else".
            assertFailsFast("tryLock(wait)", LockConnectionException.class, () -> free.tryLock(Duration.ofSeconds(2)));
            assertFailsFast("isLocked()", LockConnectionException.class, free::isLocked);
            assertFailsFast("unlock()", LockConnectionException.class, held::unlock);
            assertFailsFast("forceUnlock()", LockConnectionException.class, free::forceUnlock);
            assertFailsFast("lockAsync()", LockConnectionException.class, () -> join(free.lockAsync()));
            assertFailsFast("tryLockAsync(wait)", LockConnectionException.class, () -> join(free.tryLockAsync(Duration.ofSeconds(2))));
            assertFailsFast("LockClient.create", LockConnectionException.class, this::newClient);
        } finally {
            restartRedis();
        }

        DistributedLock after = lock(client, name + ":after");
        within(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockException.class).until(after::tryLock);
        assertTrue(after.isHeldByCurrentThread());
        after.unlock();
        assertFalse(after.isLocked());
        assertFalse(free.isLocked());
    }

    @Test
    void redisTooSlowFailsWithLockTimeoutExceptionWithinTheCommandTimeoutAndLeavesNoHoldBehind() throws Exception {
        DistributedLock lock = lock(newClient(), name);
        DistributedLock observer = lock(newClient(), name);
        lock.lock(); // scripts are cached in Redis from here on, as in any running application
        lock.unlock();

        pauseRedis();
        try {
            // Each acquire reaches Redis and would run there once it resumes: the caller got a
            // LockException, so whatever it would have taken must not outlive the failure.
            assertFailsFast("lock()", LockTimeoutException.class, lock::lock);
            assertFailsFast("lock(lease)", LockTimeoutException.class, () -> lock.lock(Duration.ofSeconds(30)));
            assertFailsFast("tryLock(wait, lease)", LockTimeoutException.class, () -> lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(30)));
            assertFailsFast("isLocked()", LockTimeoutException.class, lock::isLocked);
        } finally {
            resumeRedis();
        }

        within(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(LockException.class).until(() -> observer.remainingLease() != null);
        assertHoldsFor(Duration.ofMillis(500), "no hold may appear from an acquire that failed with LockException",
                () -> !observer.isLocked());
        assertEquals(0, lock.getHoldCount());
        assertTrue(lock.tryLock(), "the client works again once Redis answers");
        assertEquals(1, lock.getHoldCount());
        lock.unlock();
    }

    private static void join(CompletableFuture<?> future) throws Throwable {
        try {
            future.get(OwnerThread.TASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    private static void assertFailsFast(String call, Class<? extends LockException> type, Executable executable) {
        Duration bound = COMMAND_TIMEOUT.multipliedBy(2).plus(MARGIN);
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
    void nullNameIsRejected() {
        LockClient client = newClient();
        assertThrows(NullPointerException.class, () -> lock(client, null));
    }

    @Test
    void zeroOrNegativeLeaseIsRejectedNamingTheArgument() {
        DistributedLock lock = lock(newClient(), name);
        Duration negative = Duration.ofMillis(-1);
        List<Executable> calls = new ArrayList<>();
        for (Duration lease : List.of(Duration.ZERO, negative)) {
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
    void cancellingAPendingLockAsyncLeavesNoHold() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
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
    void tryLockAsyncAnswersFalseWhenHeldAndTrueWhenFree() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
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

    // ---------------------------------------------------------------------------------------
    // newCondition, forceUnlock, remainingLease

    @Test
    void newConditionIsUnsupported() {
        DistributedLock lock = lock(newClient(), name);
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
    }

    @Test
    void forceUnlockDeletesAHeldLockAndWakesAWaiter() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock operator = lock(newClient(), name);
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
}
