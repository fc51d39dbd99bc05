package io.latchkey.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What RedLock promises beyond the contract suite: how it is made and configured, the errors
 * that say what is wrong, and how its holds look on each master.
 */
class RedLockTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(600);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(400);
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);

    private static Masters masters;

    private String name;

    @BeforeAll
    static void startMasters() {
        masters = Masters.start(3);
    }

    @AfterAll
    static void stopMasters() {
        if (masters != null) {
            masters.close();
        }
    }

    @BeforeEach
    void nameTheLock() {
        name = "latchkey-test:RedLockTest:" + UUID.randomUUID();
    }

    @AfterEach
    void closeClientsAndRepair() {
        masters.closeClientsAndRepair();
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(200)).pollDelay(Duration.ZERO).pollInSameThread();
    }

    private static List<LockClient> plainClients() {
        return masters.plainClients(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT);
    }

    private DistributedLock[] plainLocks(List<LockClient> clients) {
        return clients.stream().map(client -> client.getLock(name)).toArray(DistributedLock[]::new);
    }

    @Test
    void ofComposesPlainLocksOfOneClientPerMaster() throws Exception {
        List<LockClient> clients = plainClients();
        DistributedLock lock = RedLock.of(plainLocks(clients));
        DistributedLock sameHolds = RedLock.of(plainLocks(clients));
        DistributedLock otherClients = RedLock.of(plainLocks(plainClients()));

        assertEquals(name, lock.getName());
        lock.lock();
        assertTrue(sameHolds.isHeldByCurrentThread(), "RedLocks over the same clients share holds");
        sameHolds.lock();
        assertEquals(2, lock.getHoldCount());
        assertFalse(otherClients.tryLock(Duration.ofMillis(200)));
        assertTrue(otherClients.isLocked());
        sameHolds.unlock();
        lock.unlock();
        assertFalse(otherClients.isLocked());
        assertTrue(otherClients.tryLock());
        otherClients.unlock();
    }

    @Test
    void ofRejectsWhatIsNotOnePlainLockPerIndependentMaster() {
        List<LockClient> clients = plainClients();
        DistributedLock[] locks = plainLocks(clients);
        DistributedLock foreign = (DistributedLock) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DistributedLock.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });

        assertThrows(NullPointerException.class, () -> RedLock.of((DistributedLock[]) null));
        assertThrows(NullPointerException.class, () -> RedLock.of(locks[0], null, locks[2]));
        assertRejected("at least 3", () -> RedLock.of(locks[0], locks[1]));
        assertRejected("at least 3", RedLock::of);
        assertRejected("not a plain lock", () -> RedLock.of(locks[0], locks[1], foreign));
        assertRejected("not a plain lock", () -> RedLock.of(locks[0], locks[1], RedLock.of(locks)));
        assertRejected("same LockClient", () -> RedLock.of(locks[0], locks[1], clients.get(1).getLock(name)));
        assertRejected("same Redis", () -> RedLock.of(locks[0], locks[1], plainClients().get(1).getLock(name)));
        assertRejected("share one name", () -> RedLock.of(locks[0], locks[1], clients.get(2).getLock(name + ":other")));
    }

    private static void assertRejected(String because, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(because), "expected '" + because + "' in: " + e.getMessage());
    }

    @Test
    void getRedLockWithoutRedLockAddressesNamesTheSetting() {
        LockClient client = masters.client(LockConfig.builder().address(masters.uris()[0]).build());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> client.getRedLock(name));
        assertTrue(e.getMessage().contains("redLockAddresses"), e.getMessage());
        assertTrue(client.getLock(name).tryLock(), "the client itself still works");
        client.getLock(name).unlock();
    }

    @Test
    void fewerThanThreeRedLockAddressesAreRejectedWhenTheConfigIsBuilt() {
        String[] uris = masters.uris();
        for (String[] tooFew : List.of(new String[] {uris[0]}, new String[] {uris[0], uris[1]})) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> LockConfig.builder().redLockAddresses(tooFew).build());
            assertTrue(e.getMessage().contains("redLockAddresses") && e.getMessage().contains(String.valueOf(tooFew.length)),
                    e.getMessage());
        }
        assertEquals(List.of(uris), LockConfig.builder().redLockAddresses(uris).build().redLockAddresses());
    }

    @Test
    void theSameRedLockAddressTwiceIsRejectedWhenTheConfigIsBuilt() {
        String[] uris = masters.uris();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LockConfig.builder().redLockAddresses(uris[0], uris[1], uris[0]).build());
        assertTrue(e.getMessage().contains("redLockAddresses") && e.getMessage().contains(uris[0]), e.getMessage());
    }

    @Test
    void createFailsWithLockExceptionWhenAMajorityOfMastersIsUnreachable() {
        String[] uris = masters.uris();
        LockConfig config = LockConfig.builder().redLockAddresses(uris[0], "redis://127.0.0.1:1", "redis://127.0.0.1:2")
                .commandTimeout(COMMAND_TIMEOUT).watchdogTimeout(WATCHDOG_TIMEOUT).build();
        LockException e = assertThrows(LockException.class, () -> LockClient.create(config));
        assertTrue(e.getMessage().contains("1 of 3") && e.getMessage().contains("127.0.0.1:"), e.getMessage());
    }

    @Test
    void aMasterUnreachableAtCreateCountsAsNotAnsweringUntilTheClientReachesIt() throws Exception {
        masters.get(2).kill();
        LockClient client = masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
        DistributedLock early = client.getRedLock(name);

        assertTrue(early.tryLock(Duration.ofSeconds(1)), "a majority is reachable");
        assertEquals(1, early.getHoldCount());
        early.unlock();
        assertFalse(early.isLocked());

        masters.get(2).restart();
        // The client keeps connecting in the background; new locks use the master once it has.
        within(Duration.ofSeconds(20)).until(() -> {
            DistributedLock lock = client.getRedLock(name);
            lock.lock(Duration.ofSeconds(10));
            try {
                return !masters.holds(2, name).isEmpty();
            } finally {
                lock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).isEmpty());
    }

    @Test
    void aRedLockClientNeedsNoAddressOfItsOwn() {
        LockClient client = masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> client.getLock(name));
        assertTrue(e.getMessage().contains("address"), e.getMessage());
        DistributedLock lock = client.getRedLock(name);
        assertTrue(lock.tryLock());
        lock.unlock();
    }

    @Test
    void eachMasterCountsTheOwnersHoldsAndTheLastUnlockClearsThemAll() {
        DistributedLock lock = masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build())
                .getRedLock(name);
        String owner = ":" + Thread.currentThread().getId();

        lock.lock(Duration.ofSeconds(10));
        lock.lock(Duration.ofSeconds(10));
        for (int i = 0; i < masters.size(); i++) {
            Map<String, String> holds = masters.holds(i, name);
            assertEquals(1, holds.size(), "one field per owner on master " + i + ": " + holds);
            Map.Entry<String, String> hold = holds.entrySet().iterator().next();
            assertTrue(hold.getKey().endsWith(owner), "the field is <clientId>:<ownerId>: " + hold.getKey());
            assertEquals("2", hold.getValue(), "master " + i + " counts both holds");
        }
        lock.unlock();
        for (int i = 0; i < masters.size(); i++) {
            assertEquals("1", masters.holds(i, name).values().iterator().next());
        }
        lock.unlock();
        // An unlock returns once a majority released; the last master may answer a moment later.
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).isEmpty());
    }

    @Test
    void aWatchdogReEntryReleasedOverAFixedLeaseStopsRenewingSoTheFixedLeaseRunsOut() {
        DistributedLock lock = masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build())
                .getRedLock(name);
        LockHold outer = lock.acquire(Duration.ofSeconds(2));
        LockHold inner = lock.acquire();
        inner.close();
        // As a plain lock: the watchdog renewed the hold only while the watchdog level lasted;
        // the masters' keys run out with the fixed lease, or at most one watchdog lease after the inner release.
        within(Duration.ofSeconds(2).plus(WATCHDOG_TIMEOUT).plusSeconds(2)).until(() -> masters.mastersHolding(name).isEmpty());
        await().atMost(Duration.ofSeconds(5)).until(() -> outer.leaseLost().isDone());
    }

    @Test
    void aLeaseNoLongerThanTheDriftAllowanceIsRejected() throws Exception {
        DistributedLock lock = masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build())
                .getRedLock(name);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> lock.tryLock(Duration.ofSeconds(1), Duration.ofMillis(2)));
        assertTrue(e.getMessage().contains("leaseTime"), e.getMessage());
        assertEquals(List.of(), masters.mastersHolding(name));
        // Short, yet long enough that a quorum taken on a busy machine still has validity left
        // (50 ms did not, at a load average of 15 on 2 cores).
        assertTrue(lock.tryLock(Duration.ofSeconds(5), Duration.ofMillis(300)), "a short lease above the allowance is fine");
    }
}
