package io.latchkey.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import io.latchkey.TimingBound;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RedLock under faults of real masters, with three and with five: a minority killed, a majority
 * killed, a majority held by someone else, masters paused (SIGSTOP) during an acquire, renewal on
 * what is left, and a majority lost while held. Every test puts back what it broke.
 */
@TimingBound
class RedLockFaultTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(600);
    /** For the pause tests: far above the attempt timeout, so that the two bounds are told apart. */
    private static final Duration LONG_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(400);
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private static Masters three;
    private static Masters five;

    private String name;

    @BeforeAll
    static void startMasters() {
        three = Masters.start(3);
        five = Masters.start(5);
    }

    @AfterAll
    static void stopMasters() {
        if (three != null) {
            three.close();
        }
        if (five != null) {
            five.close();
        }
    }

    @AfterEach
    void repair() {
        three.closeClientsAndRepair();
        five.closeClientsAndRepair();
    }

    private String newName(String test) {
        name = "latchkey-test:RedLockFaultTest:" + test + ":" + UUID.randomUUID();
        return name;
    }

    private static Masters masters(int count) {
        return count == 3 ? three : five;
    }

    private static LockClient client(Masters masters) {
        return masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
    }

    private static LockClient patientClient(Masters masters) {
        return masters.client(masters.config(LONG_COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, Duration.ofSeconds(10)).build());
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread();
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static int minority(Masters masters) {
        return masters.size() - masters.majority();
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void withAMinorityKilledLockAndUnlockStillWork(int count) throws Exception {
        Masters masters = masters(count);
        DistributedLock lock = client(masters).getRedLock(newName("minorityKilled"));
        DistributedLock other = client(masters).getRedLock(name);
        long owner = ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);

        masters.kill(minority(masters));

        lock.lock();
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(other.isLocked());
        assertFalse(other.tryLock(), "the lock is held on the majority that is left");
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertFalse(other.isLocked());

        assertTrue(lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(10)));
        lock.unlock();
        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        assertTrue(lock.isHeldBy(owner));
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertFalse(lock.isLocked());
        within(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).isEmpty());
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void withAMajorityKilledTryLockFailsInTimeAndTheSurvivorsKeepNoHold(int count) throws Exception {
        Masters masters = masters(count);
        DistributedLock lock = client(masters).getRedLock(newName("majorityKilled"));
        assertTrue(lock.tryLock(), "all masters up: the client is connected");
        lock.unlock();

        masters.kill(masters.majority());

        // Longer than a command timeout, so that tries are made again within it, and short: it is waited out twice.
        Duration wait = Duration.ofSeconds(1);
        long start = System.nanoTime();
        try {
            assertFalse(lock.tryLock(wait), "no majority: not acquired");
        } catch (LockException expected) {
            assertTrue(expected.getMessage().contains("majority"), "says what is missing: " + expected.getMessage());
        }
        long took = millisSince(start);
        assertTrue(took < wait.plus(COMMAND_TIMEOUT).plus(MARGIN).toMillis(), "tryLock(" + wait + ") took " + took + " ms");
        assertEquals(List.of(), masters.mastersHolding(name), "a survivor kept a partial grant");

        assertThrows(LockException.class, () -> lock.lock(Duration.ofSeconds(5)));
        assertThrows(LockException.class, lock::tryLock);
        ExecutionException async = assertThrows(ExecutionException.class,
                () -> lock.tryLockAsync(wait).get(10, TimeUnit.SECONDS));
        assertInstanceOf(LockException.class, async.getCause());
        assertEquals(List.of(), masters.mastersHolding(name), "a survivor kept a partial grant");
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void heldByAnotherOwnerOnAMajorityIsDeniedAndLeavesNothingOnTheOtherMasters(int count) throws Exception {
        Masters masters = masters(count);
        List<LockClient> plain = masters.plainClients(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT);
        DistributedLock redLock = client(masters).getRedLock(newName("heldElsewhere"));
        for (int i = 0; i < masters.majority(); i++) {
            plain.get(i).getLock(name).lock(Duration.ofSeconds(30));
        }

        assertFalse(redLock.tryLock());
        long start = System.nanoTime();
        assertFalse(redLock.tryLock(Duration.ofMillis(500)));
        long waited = millisSince(start);
        assertTrue(waited >= 450 && waited < 500 + MARGIN.toMillis(), "tryLock(500 ms) took " + waited + " ms");
        assertFalse(redLock.isHeldByCurrentThread());

        for (int i = 0; i < masters.size(); i++) {
            Map<String, String> holds = masters.holds(i, name);
            if (i < masters.majority()) {
                assertEquals(1, holds.size(), "master " + i + " keeps the other owner's hold only: " + holds);
                assertEquals("1", holds.values().iterator().next());
            } else {
                assertEquals(Map.of(), holds, "master " + i + " kept a partial grant");
            }
        }
        assertTrue(redLock.isLocked(), "a majority holds it, if not for a RedLock");
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void aPausedMinorityCostsOneAttemptTimeoutAndItsLateGrantIsReleased(int count) throws Exception {
        Masters masters = masters(count);
        DistributedLock lock = patientClient(masters).getRedLock(newName("pausedMinority"));
        assertTrue(lock.tryLock(), "all masters up: the client is connected");
        lock.unlock();

        int paused = minority(masters);
        try {
            for (int i = 0; i < paused; i++) {
                masters.get(i).pause();
            }
            long start = System.nanoTime();
            assertTrue(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30)), "a majority answers");
            long took = millisSince(start);
            assertTrue(took >= ATTEMPT_TIMEOUT.toMillis() - 50, "the try waited for the paused masters only " + took + " ms");
            assertTrue(took < ATTEMPT_TIMEOUT.plus(MARGIN).toMillis(), "the try was not bounded by the attempt timeout: " + took + " ms");

            start = System.nanoTime();
            lock.unlock();
            took = millisSince(start);
            assertTrue(took < LONG_COMMAND_TIMEOUT.toMillis() - 500, "unlock waited for a paused master: " + took + " ms");
        } finally {
            for (int i = 0; i < paused; i++) {
                masters.get(i).resume();
            }
        }
        // The paused masters run the acquire, then the release queued behind it.
        within(Duration.ofSeconds(10)).until(() -> masters.mastersHolding(name).isEmpty());
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void aPausedMajorityFailsWithinTheAttemptTimeoutAndLeavesNothingOnceResumed(int count) throws Exception {
        Masters masters = masters(count);
        DistributedLock lock = patientClient(masters).getRedLock(newName("pausedMajority"));
        assertTrue(lock.tryLock(), "all masters up: the client is connected");
        lock.unlock();

        try {
            for (int i = 0; i < masters.majority(); i++) {
                masters.get(i).pause();
            }
            long start = System.nanoTime();
            LockException failure = assertThrows(LockException.class, () -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(30)));
            long took = millisSince(start);
            assertTrue(failure.getMessage().contains("did not answer within"), failure.getMessage());
            assertTrue(took < ATTEMPT_TIMEOUT.plus(MARGIN).toMillis(), "the try was not bounded by the attempt timeout: " + took + " ms");
            assertEquals(List.of(), masters.mastersHolding(name), "a master that answered kept its grant");
        } finally {
            for (int i = 0; i < masters.majority(); i++) {
                masters.get(i).resume();
            }
        }
        within(Duration.ofSeconds(10)).until(() -> masters.mastersHolding(name).isEmpty());
        assertTrue(lock.tryLock(Duration.ofSeconds(5)), "usable again once resumed");
        lock.unlock();
    }

    /**
     * A paused master's answers are bounded by the attempt timeout. That bound must not be
     * CompletableFuture.orTimeout's: whatever follows the timeout (the quorum decision, the
     * caller's callbacks) would run on the JDK's one shared delay thread.
     */
    @Test
    void withAPausedMasterNoAcquireStepCompletesOnTheJdkDelayThread() throws Exception {
        DistributedLock lock = patientClient(three).getRedLock(newName("pausedMasterThreads"));
        DistributedLock holder = patientClient(three).getRedLock(name);
        long owner = ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
        List<String> threads = new CopyOnWriteArrayList<>();

        three.get(0).pause();
        try {
            // Decided when the paused master's answer times out.
            assertTrue(lock.tryLockAsync(Duration.ZERO, Duration.ofSeconds(30), owner)
                    .whenComplete((acquired, failure) -> threads.add(Thread.currentThread().getName()))
                    .get(10, TimeUnit.SECONDS));
            lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);

            // A waiter: it joins the channels, waits out the holder's lease and then acquires.
            holder.lock(Duration.ofMillis(1500));
            lock.lockAsync(Duration.ofSeconds(30), owner)
                    .whenComplete((ok, failure) -> threads.add(Thread.currentThread().getName()))
                    .get(10, TimeUnit.SECONDS);
            lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);
        } finally {
            three.get(0).resume();
        }

        assertEquals(2, threads.size(), threads.toString());
        assertTrue(threads.stream().noneMatch(thread -> thread.startsWith("CompletableFutureDelayScheduler")),
                "completed on the JDK's delay thread: " + threads);
        within(Duration.ofSeconds(10)).until(() -> three.mastersHolding(name).isEmpty());
    }

    /**
     * A paused master accepts connections (the kernel does) but never answers, so connecting to it
     * takes the whole connect timeout. Before: once the retry interval (ten command timeouts) had
     * passed, the next getRedLock connected to it on the caller's thread, inside a monitor.
     */
    @Test
    void getRedLockNeverWaitsForAConnectAndTheClientUsesTheMasterOnceItAnswers() throws Exception {
        Duration commandTimeout = Duration.ofMillis(400);
        Duration prompt = Duration.ofMillis(1000); // connecting to a paused master takes at least 2 s
        three.get(2).pause();
        LockClient client = three.client(three.config(commandTimeout, commandTimeout, WATCHDOG_TIMEOUT).build());
        DistributedLock early = client.getRedLock(newName("backgroundConnect"));

        // Longer than the old retry interval, so that the old code would have connected in there.
        Duration watched = commandTimeout.multipliedBy(10).plusSeconds(1);
        await().during(watched).atMost(watched.plusSeconds(3)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                .pollInSameThread().untilAsserted(() -> {
                    long start = System.nanoTime();
                    DistributedLock lock = client.getRedLock(name);
                    long took = millisSince(start);
                    assertTrue(took < prompt.toMillis(), "getRedLock waited " + took + " ms for a connect");
                    assertTrue(lock.tryLock(Duration.ZERO, Duration.ofSeconds(10)), "a majority answers");
                    lock.unlock();
                });

        three.get(2).resume();
        // The same client, and a lock made while the master was not connected.
        within(Duration.ofSeconds(15)).until(() -> {
            early.lock(Duration.ofSeconds(10));
            try {
                return !three.holds(2, name).isEmpty();
            } finally {
                early.unlock();
            }
        });
        within(Duration.ofSeconds(5)).until(() -> three.mastersHolding(name).isEmpty());
    }

    @Test
    void closingTheClientWhileItConnectsToAMasterLeavesNoThreadOrConnectionBehind() {
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        three.get(2).pause();
        LockClient client = three.client(three.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
        // The background connect to the paused master runs on a connector thread for its whole timeout.
        within(Duration.ofSeconds(5)).until(() -> threadsStartedSince(before).stream()
                .anyMatch(thread -> thread.startsWith("latchkey-redlock-connect")));

        client.close();
        three.get(2).resume(); // the connect in flight now succeeds: it must close what it opened

        within(Duration.ofSeconds(15)).untilAsserted(() -> assertEquals(List.of(), threadsStartedSince(before),
                () -> "threads still alive after close(), where they are:" + whereTheyAre(before)));
    }

    /** For the failure's message: the stack of every thread that should have ended (seen once in a soak under load). */
    private static String whereTheyAre(Set<Thread> before) {
        StringBuilder stacks = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.isAlive() && !before.contains(thread) && threadsStartedSince(before).contains(thread.getName())) {
                stacks.append("\n  ").append(thread.getName());
                for (StackTraceElement frame : stack) {
                    stacks.append("\n      at ").append(frame);
                }
            }
        });
        return stacks.toString();
    }

    /** @return the names of the client threads (Latchkey's and Lettuce's) started since {@code before} */
    private static List<String> threadsStartedSince(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(thread -> !before.contains(thread))
                .map(Thread::getName)
                .filter(thread -> thread.startsWith("latchkey-") || thread.startsWith("lettuce-"))
                .sorted()
                .toList();
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void theWatchdogKeepsTheHoldPastItsLeaseOnTheMajorityThatIsLeft(int count) throws Exception {
        Masters masters = masters(count);
        DistributedLock lock = client(masters).getRedLock(newName("watchdog"));
        DistributedLock other = client(masters).getRedLock(name);

        lock.lock();
        masters.kill(minority(masters));
        long start = System.nanoTime();
        within(WATCHDOG_TIMEOUT.multipliedBy(4)).until(() -> millisSince(start) > WATCHDOG_TIMEOUT.multipliedBy(2).toMillis()
                && assertStillHeld(other));
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(other.remainingLease().compareTo(Duration.ZERO) > 0);
        assertFalse(other.tryLock());

        lock.unlock();
        assertFalse(other.isLocked());
    }

    /** Polled: fails the test at once if the lock is ever seen free. */
    private static boolean assertStillHeld(DistributedLock observer) {
        assertTrue(observer.isLocked(), "the renewed hold ran out");
        return true;
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void losingTheMajorityWhileHeldIsReportedAsALostLease(int count) throws Exception {
        Masters masters = masters(count);
        List<Long> lost = new CopyOnWriteArrayList<>();
        List<LockClient> plain = masters.plainClients(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT);
        List<DistributedLock> locks = new ArrayList<>();
        newName("lostLease");
        plain.forEach(client -> locks.add(client.getLock(name)));
        DistributedLock lock = RedLock.of((lockName, owner) -> lost.add(owner), locks.toArray(DistributedLock[]::new));

        lock.lock();
        assertHoldsFor(WATCHDOG_TIMEOUT.plusMillis(500), () -> lost.isEmpty());
        masters.kill(masters.majority());

        within(WATCHDOG_TIMEOUT.multipliedBy(2).plus(MARGIN)).until(() -> !lost.isEmpty());
        assertEquals(1, lost.size());
        assertEquals(Thread.currentThread().getId(), (long) lost.get(0));
        // The survivors' renewals stopped with the lost lease, so their holds run out.
        within(WATCHDOG_TIMEOUT.multipliedBy(2).plus(MARGIN)).until(() -> masters.mastersHolding(name).isEmpty());
        assertThrows(LeaseLostException.class, lock::unlock, "the lease was lost: unlock says so, without asking the masters");
    }

    @ParameterizedTest(name = "{0} masters")
    @ValueSource(ints = {3, 5})
    void aMajorityRestartedWithoutItsDataWhileHeldIsReportedAsALostLease(int count) throws Exception {
        Masters masters = masters(count);
        List<Long> lost = new CopyOnWriteArrayList<>();
        List<LockClient> plain = masters.plainClients(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT);
        newName("restartedMajority");
        DistributedLock[] locks = plain.stream().map(client -> client.getLock(name)).toArray(DistributedLock[]::new);
        DistributedLock lock = RedLock.of((lockName, owner) -> lost.add(owner), locks);
        DistributedLock other = RedLock.of(masters.plainClients(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).stream()
                .map(client -> client.getLock(name)).toArray(DistributedLock[]::new));

        lock.lock();
        for (int i = 0; i < masters.majority(); i++) {
            masters.get(i).kill();
            masters.get(i).restart(); // no persistence: the hold is gone from these masters
        }

        // The first renewal that reaches a restarted master finds the hold gone.
        within(WATCHDOG_TIMEOUT.multipliedBy(3).plus(MARGIN)).until(() -> !lost.isEmpty());
        assertEquals(List.of(Thread.currentThread().getId()), lost);
        within(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockException.class).until(() -> other.tryLock());
        other.unlock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "the lost hold is not the owner's any more");
    }

    /**
     * The owner's release is on its way to every master when they freeze; the watchdog's next
     * rounds queue behind it, and find the hold gone once the masters run the release. The
     * release stopped the renewals as it was sent, as a plain lock's does: the owner's own
     * release is never reported as a lost lease (found by eight threads of one client on a
     * loaded machine, whose releases timed out).
     */
    @Test
    void aReleaseTheMastersAnswerLateIsNeverReportedAsALostLease() throws Exception {
        Masters masters = three;
        List<Long> lost = new CopyOnWriteArrayList<>();
        newName("lateRelease");
        // A lease long enough to outlast the freeze by far: what ends this hold is its release only.
        Duration watchdog = WATCHDOG_TIMEOUT.multipliedBy(3);
        DistributedLock[] locks = masters.plainClients(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, watchdog).stream()
                .map(client -> client.getLock(name)).toArray(DistributedLock[]::new);
        DistributedLock lock = RedLock.of((lockName, owner) -> lost.add(owner), locks);
        LockHold hold = lock.acquire();
        for (int i = 0; i < masters.size(); i++) {
            masters.get(i).pause();
        }
        CompletableFuture<Void> release = CompletableFuture.runAsync(hold::close);
        // Past the command timeout, and a renewal period (a third of the lease) queued behind the release.
        Thread.sleep(watchdog.dividedBy(3).plus(COMMAND_TIMEOUT).toMillis());
        for (int i = 0; i < masters.size(); i++) {
            masters.get(i).resume();
        }
        try {
            release.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException failure) {
            // The release timed out: it is settled once the masters answer, and says so; it is not a loss.
            assertInstanceOf(LockException.class, failure.getCause(), "the release of a hold that was not lost");
        }
        within(watchdog.plus(MARGIN)).until(() -> masters.mastersHolding(name).isEmpty());
        assertHoldsFor(WATCHDOG_TIMEOUT, () -> lost.isEmpty());
        assertFalse(hold.leaseLost().isDone(), "the owner's own release was reported as a lost lease");
    }

    private static void assertHoldsFor(Duration period, Callable<Boolean> condition) {
        await().during(period).atMost(period.plusMillis(500)).pollInterval(Duration.ofMillis(20)).until(condition);
    }
}
