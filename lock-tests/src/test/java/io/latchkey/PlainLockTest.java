package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.contract.SingleServerContract;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract for the plain reentrant lock ({@link LockClient#getLock(String)}) against one
 * real Redis server, plus what only the plain lock promises: its layout in Redis and its
 * unlock subscriptions. With local hand-off off, so that every hold is the owner's own in Redis;
 * {@code CohortContractTest} runs the contract with hand-off on, the default.
 */
class PlainLockTest extends SingleServerContract {

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return super.addresses(builder).noLocalHandOff();
    }

    private static RedisInspector inspector;

    @BeforeAll
    static void connectRedisInspector() {
        inspector = new RedisInspector(redis().uri());
    }

    @AfterAll
    static void closeRedisInspector() {
        if (inspector != null) {
            inspector.close();
        }
    }

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getLock(name);
    }

    @Test
    void emptyNameIsRejected() {
        LockClient client = newClient();
        assertThrows(IllegalArgumentException.class, () -> client.getLock(""));
    }

    @Test
    void holdIsAHashFieldOfClientAndOwnerWithTheHoldCountAndTheLeaseAsTtl() {
        DistributedLock lock = newClient().getLock(name);

        lock.lock(Duration.ofSeconds(10));
        lock.lock(Duration.ofSeconds(10));
        Map<String, String> fields = inspector.commands().hgetall(name);
        assertEquals(3, fields.size(), "per owner, a hold count, the id of its last call and the hold's token: " + fields);
        Map.Entry<String, String> hold = fields.entrySet().stream()
                .filter(field -> !field.getKey().endsWith(":call") && !field.getKey().endsWith(":token"))
                .findFirst().orElseThrow();
        assertTrue(hold.getKey().endsWith(":" + Thread.currentThread().getId()),
                "field is <clientId>:<ownerId>, got " + hold.getKey());
        assertEquals("2", hold.getValue(), "the value is the hold count");
        assertTrue(fields.containsKey(hold.getKey() + ":call"), "field <clientId>:<ownerId>:call, got " + fields);
        String token = fields.get(hold.getKey() + ":token");
        assertNotNull(token, "field <clientId>:<ownerId>:token, got " + fields);
        assertTrue(Long.parseLong(token) > 0, "the fencing token is positive, got " + token);
        long ttl = inspector.commands().pttl(name);
        assertTrue(ttl > 8_000 && ttl <= 10_000, "PEXPIRE is the lease, PTTL " + ttl);

        lock.unlock();
        lock.unlock();
        assertEquals(0L, inspector.commands().exists(name), "the last unlock deletes the key");
    }

    @Test
    void fencingTokensKeepGrowingAfterTheLockKeyIsDeletedBehindTheClientsBack() throws Exception {
        DistributedLock lock = newHolderClient().getLock(name);
        DistributedLock other = newClient().getLock(name);

        LockHold first = lock.acquireAsync(newOwnerId()).get(5, TimeUnit.SECONDS);
        assertEquals(1L, inspector.commands().del(name), "the lock's hash is the key named after it");
        LockHold second = other.acquire();
        assertTrue(second.fencingToken() > first.fencingToken(),
                "a hold after the key was deleted and created again: " + second.fencingToken() + " vs " + first.fencingToken());
        second.close();
        assertEquals(0L, inspector.commands().exists(name));
    }

    @Test
    void waitSubscribesToTheUnlockChannelAndTheLastWaiterLeavingUnsubscribes() throws Exception {
        DistributedLock held = newClient().getLock(name);
        DistributedLock wanted = newClient().getLock(name);
        String channel = RedisInspector.channelOf(name);
        long owner = newOwnerId();

        held.lock();
        CompletableFuture<Void> waiting = wanted.lockAsync(owner);
        within(Duration.ofSeconds(5)).until(() -> inspector.subscribers(channel) == 1);

        held.unlock();
        waiting.get(5, TimeUnit.SECONDS);
        within(Duration.ofSeconds(5)).until(() -> inspector.subscribers(channel) == 0);
        wanted.unlockAsync(owner).get(5, TimeUnit.SECONDS);
    }

    @Test
    void waitersOfOneClientShareOneSubscriptionUntilTheLastLeaves() {
        DistributedLock held = newClient().getLock(name);
        LockClient waiters = newClient();
        String channel = RedisInspector.channelOf(name);

        held.lock();
        CompletableFuture<Void> first = waiters.getLock(name).lockAsync(newOwnerId());
        CompletableFuture<Void> second = waiters.getLock(name).lockAsync(newOwnerId());
        within(Duration.ofSeconds(5)).until(() -> inspector.subscribers(channel) == 1);
        first.cancel(true);
        assertHoldsFor(Duration.ofMillis(200), "the second waiter keeps the subscription",
                () -> inspector.subscribers(channel) == 1 && !second.isDone());
        second.cancel(true);
        within(Duration.ofSeconds(5)).until(() -> inspector.subscribers(channel) == 0);
        held.unlock();
    }
}
