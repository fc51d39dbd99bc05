package io.latchkey.multi;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import io.latchkey.TimingBound;
import io.latchkey.testing.RedisServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What a multi-lock promises beyond the contract rows: no deadlock between multi-locks given the
 * same locks in other orders, all or none on a timeout, an interrupt, a cancel or a Redis failure
 * of one part, its holds' parts, and its arguments. Against two real Redis servers: parts on the
 * second one come from a client of their own, so that server can fail alone.
 */
@TimingBound
class MultiLockTest {

    private static final Duration WATCHDOG = Duration.ofMillis(1500);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(700);
    /** A loss is noticed within one renewal period plus a round trip; plus slack. */
    private static final Duration LOSS_NOTICE = WATCHDOG.dividedBy(3).plus(COMMAND_TIMEOUT).plus(Duration.ofSeconds(1));

    private static RedisServers servers;

    private final List<LockClient> clients = new ArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startServers() {
        servers = RedisServers.start(2);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    @BeforeEach
    void nameTheLocks(TestInfo test) {
        name = "latchkey-test:multi:" + test.getTestMethod().orElseThrow().getName() + ":" + UUID.randomUUID();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
        executors.forEach(ExecutorService::shutdownNow);
    }

    private LockClient client(int server) {
        LockClient client = LockClient.create(LockConfig.builder().address(servers.get(server).uri())
                .watchdogTimeout(WATCHDOG).commandTimeout(COMMAND_TIMEOUT).build());
        clients.add(client);
        return client;
    }

    private ExecutorService threads(int count) {
        ExecutorService executor = Executors.newFixedThreadPool(count);
        executors.add(executor);
        return executor;
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread();
    }

    private static void assertStaysFor(Duration period, String what, java.util.concurrent.Callable<Boolean> condition) {
        await(what).during(period).atMost(period.plusSeconds(2)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(condition);
    }

    // ---- size ---------------------------------------------------------------------------------

    @Test
    void aReentryOfTheLargestMultiLockOnASmallStackTakesAndGivesBackEveryPart() throws Exception {
        LockClient client = client(0);
        DistributedLock[] locks = new DistributedLock[1000];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = client.getLock(name + ":" + i);
        }
        DistributedLock multi = client.getMultiLock(locks);
        CompletableFuture<Void> done = new CompletableFuture<>();
        // A re-entry's parts are granted at once, each in the stage of the last: before, that
        // nested a call per part, and on this stack the StackOverflowError was swallowed, the
        // re-entry never answered, and the parts stayed held and renewed (issue 27, finding 5).
        Thread small = new Thread(null, () -> {
            try {
                multi.lock();
                multi.lock();
                assertEquals(2, locks[999].getHoldCount());
                multi.unlock();
                multi.unlock();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "small-stack", 128 * 1024);
        small.start();
        done.get(30, TimeUnit.SECONDS);
        for (DistributedLock lock : locks) {
            assertFalse(lock.isLocked(), lock.getName());
        }

        DistributedLock[] tooMany = java.util.Arrays.copyOf(locks, 1001);
        tooMany[1000] = client.getLock(name + ":1000");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> client.getMultiLock(tooMany));
        assertTrue(refused.getMessage().contains("at most 1000"), refused.getMessage());
    }

    // ---- no deadlock ------------------------------------------------------------------------

    @Test
    void multiLocksOverTheSameLocksInOppositeOrdersNeverDeadlockAndExcludeEachOther() throws Exception {
        List<String> names = List.of(name + ":a", name + ":b", name + ":c");
        int threadsPerClient = 4;
        int rounds = 25;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger entered = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        ExecutorService pool = threads(2 * threadsPerClient);
        for (int c = 0; c < 2; c++) {
            LockClient client = client(0);
            List<DistributedLock> forward = names.stream().map(client::getLock).toList();
            List<DistributedLock> backward = new ArrayList<>(forward);
            java.util.Collections.reverse(backward);
            for (int t = 0; t < threadsPerClient; t++) {
                // Half the threads name the locks a, b, c and half c, b, a; each also mixes the flavours.
                DistributedLock multi = client.getMultiLock((t % 2 == 0 ? forward : backward).toArray(DistributedLock[]::new));
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        if (i % 3 == 0) {
                            multi.lock();
                        } else if (!multi.tryLock(Duration.ofSeconds(30))) {
                            throw new AssertionError("a multi-lock waited 30 s: a deadlock");
                        }
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            entered.incrementAndGet();
                            Thread.yield();
                            inside.decrementAndGet();
                        } finally {
                            multi.unlock();
                        }
                    }
                    return null;
                }));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (Future<?> worker : workers) {
            worker.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS); // a deadlock times out here
        }
        assertEquals(2 * threadsPerClient * rounds, entered.get(), "every round entered the critical section");
        assertEquals(0, overlaps.get(), "two holders of the multi-lock at once");
        DistributedLock observer = client(0).getLock(names.get(0));
        assertFalse(observer.isLocked());
    }

    // ---- all or none ------------------------------------------------------------------------

    @Test
    void aPartHeldElsewhereForTheWholeWaitMakesTryLockFalseAndLeavesNoPartHeld() throws Exception {
        LockClient mine = client(0);
        LockClient theirs = client(0);
        DistributedLock first = mine.getLock(name + ":a");
        DistributedLock multi = mine.getMultiLock(mine.getLock(name + ":b"), first);
        DistributedLock heldElsewhere = theirs.getLock(name + ":b");
        DistributedLock observer = theirs.getLock(name + ":a");

        heldElsewhere.lock();
        long start = System.nanoTime();
        assertFalse(multi.tryLock(Duration.ofMillis(300)));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited >= 250 && waited < 2000, "tryLock(300 ms) answered after " + waited + " ms");
        assertFalse(observer.isLocked(), "the part taken first was released before tryLock returned");
        assertEquals(Optional.empty(), multi.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)));
        assertFalse(multi.tryLockAsync(Duration.ofMillis(100), Duration.ofSeconds(5), 42L).get(5, TimeUnit.SECONDS));
        assertFalse(observer.isLocked());
        assertEquals(1, heldElsewhere.getHoldCount(), "the other holder is untouched");

        heldElsewhere.unlock();
        assertTrue(multi.tryLock(Duration.ofSeconds(5)));
        assertTrue(observer.isLocked() && heldElsewhere.isLocked());
        multi.unlock();
        assertFalse(observer.isLocked() || heldElsewhere.isLocked());
    }

    @Test
    void anInterruptWhileWaitingForTheSecondPartReleasesTheFirstBeforeReturning() throws Exception {
        LockClient mine = client(0);
        LockClient theirs = client(0);
        DistributedLock multi = mine.getMultiLock(mine.getLock(name + ":b"), mine.getLock(name + ":a"));
        DistributedLock first = theirs.getLock(name + ":a");
        DistributedLock second = theirs.getLock(name + ":b");
        ExecutorService waiter = threads(1);

        second.lock();
        for (int flavour = 0; flavour < 3; flavour++) {
            int which = flavour;
            Thread[] thread = new Thread[1];
            CountDownLatch started = new CountDownLatch(1);
            Future<Object> outcome = waiter.submit(() -> {
                thread[0] = Thread.currentThread();
                started.countDown();
                try {
                    return switch (which) {
                        case 0 -> multi.tryLock(Duration.ofSeconds(20));
                        case 1 -> multi.acquireInterruptibly();
                        default -> multi.tryAcquire(Duration.ofSeconds(20), Duration.ofSeconds(20));
                    };
                } catch (InterruptedException e) {
                    return e;
                }
            });
            assertTrue(started.await(5, TimeUnit.SECONDS));
            within(Duration.ofSeconds(5)).until(first::isLocked); // the first part is taken, the second waited for
            assertStaysFor(Duration.ofMillis(200), "the multi-lock waits", () -> !outcome.isDone());
            thread[0].interrupt();
            assertInstanceOf(InterruptedException.class, outcome.get(5, TimeUnit.SECONDS));
            assertFalse(first.isLocked(), "the first part was released before the interrupted call returned");
        }
        second.unlock();
        assertStaysFor(Duration.ofMillis(300), "the interrupted calls take nothing later", () -> !first.isLocked() && !second.isLocked());
    }

    @Test
    void cancellingAPendingAcquireReleasesThePartsTakenAndTakesNothingLater() throws Exception {
        LockClient mine = client(0);
        LockClient theirs = client(0);
        DistributedLock multi = mine.getMultiLock(mine.getLock(name + ":a"), mine.getLock(name + ":b"));
        DistributedLock first = theirs.getLock(name + ":a");
        DistributedLock second = theirs.getLock(name + ":b");

        second.lock();
        CompletableFuture<LockHold> pending = multi.acquireAsync(7L);
        within(Duration.ofSeconds(5)).until(first::isLocked);
        assertTrue(pending.cancel(true));
        within(Duration.ofSeconds(5)).until(() -> !first.isLocked());
        second.unlock();
        assertStaysFor(Duration.ofMillis(300), "the cancelled acquire takes nothing later", () -> !first.isLocked() && !second.isLocked());
        assertFalse(multi.isHeldBy(7L));
    }

    @Test
    void aRedisFailureOfOnePartFailsWithLockExceptionAndLeavesNoPartHeld() throws Exception {
        LockClient onFirst = client(0);
        LockClient onSecond = client(1);
        // Named so that the part on the healthy server is taken first, then released.
        DistributedLock multi = onFirst.getMultiLock(onSecond.getLock(name + ":b"), onFirst.getLock(name + ":a"));
        DistributedLock observer = client(0).getLock(name + ":a");
        multi.lock(); // both servers know the scripts
        multi.unlock();

        servers.get(1).kill();
        try {
            assertThrows(LockConnectionException.class, () -> multi.tryLock(Duration.ofSeconds(2)));
            assertFalse(observer.isLocked(), "the part on the healthy server was released");
            assertInstanceOf(LockException.class, assertThrows(ExecutionException.class,
                    () -> multi.acquireAsync(9L).get(10, TimeUnit.SECONDS)).getCause());
            assertThrows(LockConnectionException.class, multi::lock, "not false: false means held elsewhere");
            assertFalse(observer.isLocked());
        } finally {
            servers.get(1).restart();
        }
        DistributedLock after = onFirst.getMultiLock(onSecond.getLock(name + ":b"), onFirst.getLock(name + ":a"));
        within(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockException.class).until(after::tryLock);
        after.unlock();
        assertFalse(observer.isLocked());
    }

    // ---- releasing --------------------------------------------------------------------------

    @Test
    void unlockReleasesEveryPartAndForceUnlockDeletesEveryPart() throws Exception {
        LockClient mine = client(0);
        LockClient other = client(1);
        DistributedLock a = mine.getLock(name + ":a");
        DistributedLock b = other.getLock(name + ":b"); // a part of another client, on another server
        DistributedLock multi = mine.getMultiLock(a, b);

        multi.lock();
        multi.lock();
        assertTrue(a.isHeldByCurrentThread() && b.isHeldByCurrentThread());
        assertEquals(2, multi.getHoldCount());
        multi.unlock();
        assertEquals(1, a.getHoldCount(), "one unlock releases one level of every part");
        assertEquals(1, b.getHoldCount());
        multi.unlock();
        assertFalse(a.isLocked() || b.isLocked(), "the last unlock releases every part");
        assertFalse(multi.isLocked());
        assertThrows(IllegalMonitorStateException.class, multi::unlock);

        LockHold hold = multi.acquire();
        DistributedLock operator = client(0).getMultiLock(client(0).getLock(name + ":a"), client(1).getLock(name + ":b"));
        assertTrue(operator.isLocked());
        assertTrue(operator.forceUnlock(), "forceUnlock answers true if any part was locked");
        assertFalse(a.isLocked() || b.isLocked(), "forceUnlock deletes every part");
        assertFalse(operator.forceUnlock());
        assertNull(hold.leaseLost().get(LOSS_NOTICE.toMillis(), TimeUnit.MILLISECONDS));
        assertThrows(LeaseLostException.class, hold::close);
    }

    @Test
    void isLockedWhileAnyPartIsAndRemainingLeaseIsTheShortestPart() throws Exception {
        LockClient client = client(0);
        DistributedLock a = client.getLock(name + ":a");
        DistributedLock b = client.getLock(name + ":b");
        DistributedLock multi = client.getMultiLock(a, b);
        ExecutorService other = threads(1);

        assertFalse(multi.isLocked());
        other.submit(() -> b.lock(Duration.ofSeconds(10))).get(5, TimeUnit.SECONDS);
        assertTrue(multi.isLocked(), "one part locked is enough");
        assertFalse(multi.isHeldBy(Thread.currentThread().getId()));
        other.submit(() -> b.unlock()).get(5, TimeUnit.SECONDS);

        a.lock(Duration.ofSeconds(30));
        multi.lock(Duration.ofSeconds(5)); // a re-entry of a, which keeps the longer lease, and a new hold of b
        Duration lease = multi.remainingLease();
        assertTrue(lease.compareTo(Duration.ofSeconds(5)) <= 0 && lease.toMillis() > 3000, "the shortest part's lease, got " + lease);
        multi.unlock();
        a.unlock();
        assertEquals(Duration.ZERO, multi.remainingLease());
    }

    // ---- holds ------------------------------------------------------------------------------

    @Test
    void holdListsItsPartsInAcquisitionOrderAndHasNoTokenOfItsOwn() throws Exception {
        LockClient client = client(0);
        DistributedLock c = client.getLock(name + ":c");
        DistributedLock a = client.getLock(name + ":a");
        DistributedLock b = client.getFairLock(name + ":b");
        DistributedLock multi = client.getMultiLock(c, a, b);
        assertEquals(List.of(name + ":a", name + ":b", name + ":c").toString(), multi.getName(), "parts by name");

        List<java.util.concurrent.Callable<LockHold>> acquisitions = List.of(multi::acquire, () -> multi.acquireAsync(11L).get(5, TimeUnit.SECONDS));
        for (java.util.concurrent.Callable<LockHold> acquisition : acquisitions) {
            LockHold hold = acquisition.call();
            assertSame(multi, hold.lock());
            assertEquals(List.of(a, b, c), hold.parts().stream().map(LockHold::lock).toList(), "one hold per lock, in acquisition order");
            for (LockHold part : hold.parts()) {
                assertEquals(hold.ownerId(), part.ownerId(), "every part belongs to the multi-lock's owner");
                assertTrue(part.fencingToken() > 0, "each part has a token of its own");
                assertTrue(part.isValid());
                assertEquals(List.of(part), part.parts());
            }
            assertThrows(UnsupportedOperationException.class, hold::fencingToken);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> hold.parts().get(1).close());
            assertTrue(e.getMessage().contains("multi-lock"), e.getMessage());
            assertTrue(hold.isValid() && hold.parts().get(1).isValid(), "a refused part close releases nothing");
            hold.close();
            assertFalse(hold.isValid() || hold.parts().get(0).isValid(), "the multi-lock's close releases every part");
            assertDoesNotThrow(hold::close, "a second close does nothing");
        }
        assertFalse(a.isLocked() || b.isLocked() || c.isLocked());
    }

    @Test
    void leaseLostCompletesWhenOnePartIsForceUnlockedElsewhereAndCloseReleasesTheRest() throws Exception {
        LockClient client = client(0);
        DistributedLock a = client.getLock(name + ":a");
        DistributedLock b = client.getLock(name + ":b");
        DistributedLock multi = client.getMultiLock(a, b);
        DistributedLock observerA = client(0).getLock(name + ":a");

        LockHold hold = multi.acquire();
        LockHold reentry = multi.acquire();
        assertSame(hold.leaseLost(), reentry.leaseLost(), "one notice per hold");
        long forcedAt = System.nanoTime();
        assertTrue(client(0).getLock(name + ":b").forceUnlock());
        assertNull(hold.leaseLost().get(LOSS_NOTICE.toMillis() + 1000, TimeUnit.MILLISECONDS));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - forcedAt);
        assertTrue(took < LOSS_NOTICE.toMillis(), "noticed after " + took + " ms");
        assertFalse(hold.isValid() || reentry.isValid());
        assertTrue(observerA.isLocked(), "the other part is still held until the owner hears of the loss");

        assertThrows(LeaseLostException.class, reentry::close);
        assertFalse(observerA.isLocked(), "close() of the lost hold released every level of the other part");
        IllegalMonitorStateException after = assertThrows(IllegalMonitorStateException.class, multi::unlock);
        assertFalse(after instanceof LeaseLostException, "the LeaseLostException ended the hold: " + after);
        // As for a plain lock: every handle of the lost hold says so, and touches nothing.
        assertThrows(LeaseLostException.class, hold::close);
        assertDoesNotThrow(hold::close, "a second close() of the same handle does nothing");
        assertFalse(observerA.isLocked());
    }

    @Test
    void aLockThatIsNotLatchkeysOwnWorksAsAPartThroughThePublicApi() throws Exception {
        LockClient client = client(0);
        DistributedLock a = client.getLock(name + ":a");
        DistributedLock foreign = decorated(client.getLock(name + ":b"));
        DistributedLock multi = client.getMultiLock(foreign, a);
        DistributedLock observerB = client(0).getLock(name + ":b");

        LockHold hold = multi.acquire();
        assertTrue(observerB.isLocked() && a.isLocked());
        assertEquals(List.of(a, foreign), hold.parts().stream().map(LockHold::lock).toList());
        hold.close();
        assertFalse(observerB.isLocked() || a.isLocked());

        observerB.lock(); // the decorated part is held elsewhere: its watchdog try runs out and is cancelled
        assertFalse(multi.tryLock(Duration.ofMillis(300)));
        assertFalse(a.isLocked());
        assertFalse(multi.tryLock(), "a try with no wait is still answered");
        observerB.unlock();
        assertTrue(multi.tryLock(), "a try with no wait of a free decorated part takes it");
        multi.unlock();

        DistributedLock nested = client.getMultiLock(multi, client.getLock(name + ":c"));
        nested.lock();
        assertTrue(observerB.isLocked() && a.isLocked() && client.getLock(name + ":c").isLocked());
        nested.unlock();
        assertFalse(observerB.isLocked() || a.isLocked());
    }

    /** A decorator of the application's own: a DistributedLock that is not one of Latchkey's. */
    private static DistributedLock decorated(DistributedLock lock) {
        return (DistributedLock) Proxy.newProxyInstance(MultiLockTest.class.getClassLoader(), new Class<?>[] {DistributedLock.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("toString")) {
                        return "decorated " + lock;
                    }
                    try {
                        return method.invoke(lock, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    // ---- arguments --------------------------------------------------------------------------

    @Test
    void badArgumentsAreRejectedNamingTheProblem() {
        LockClient client = client(0);
        LockClient sameRedis = client(0);
        DistributedLock a = client.getLock(name + ":a");

        assertTrue(assertThrows(IllegalArgumentException.class, client::getMultiLock).getMessage().contains("locks"));
        assertThrows(NullPointerException.class, () -> client.getMultiLock((DistributedLock[]) null));
        assertTrue(assertThrows(NullPointerException.class, () -> client.getMultiLock(a, null)).getMessage().contains("locks[1]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> client.getMultiLock(a, a)).getMessage().contains("same lock"));
        assertThrows(IllegalArgumentException.class, () -> client.getMultiLock(a, client.getLock(name + ":a")),
                "two objects of one lock of one client");
        assertThrows(IllegalArgumentException.class, () -> client.getMultiLock(a, sameRedis.getLock(name + ":a")),
                "one lock on one Redis through two clients: the multi-lock would wait for itself");
        assertDoesNotThrow(() -> client.getMultiLock(a, client(1).getLock(name + ":a")), "one name on two Redis servers is two locks");
        DistributedLock multi = client.getMultiLock(a);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> multi.tryLock(Duration.ofMillis(-1))).getMessage().contains("waitTime"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> multi.lock(Duration.ZERO)).getMessage().contains("leaseTime"));
        assertFalse(a.isLocked());
    }
}
