package io.latchkey;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.lock.LockKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Locks whose names share a hash tag ({@code {user1}:orders}, {@code {user1}:payments}) live in
 * one Cluster slot, but are still two locks: neither shares the other's fair queue or unlock
 * channel. Holders' leases are 30 s, so only a message can hand a lock over within seconds.
 */
class NamesSharingAHashTagTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private final List<LockClient> clients = new ArrayList<>();
    private String orders;
    private String payments;

    @BeforeEach
    void nameTheLocks() {
        String tag = "{latchkey-test:" + UUID.randomUUID() + "}";
        orders = tag + ":orders";
        payments = tag + ":payments";
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient newClient() {
        LockClient client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(LONG_LEASE).commandTimeout(Duration.ofSeconds(1)).build());
        clients.add(client);
        return client;
    }

    @Test
    void aFairLockIsNotBlockedByTheQueueOfAnotherLockWithTheSameHashTag() throws Exception {
        LockClient holder = newClient();
        DistributedLock ordersWaited = newClient().getFairLock(orders);
        holder.getFairLock(orders).lockAsync(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> queued = ordersWaited.lockAsync(2);
        String ordersQueue = LockKeys.of(orders).derived("queue");
        await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.inspector().commands().llen(ordersQueue) == 1);

        // The holder of orders takes payments too, which nobody holds or waits for: a fixed lock
        // order, which cannot deadlock. Had the two locks one queue, the payments try would line
        // up behind the orders waiter, who waits for this holder.
        assertTrue(holder.getFairLock(payments).tryLockAsync(Duration.ofSeconds(1), LONG_LEASE, 1).get(5, TimeUnit.SECONDS),
                "payments is free and nobody waits for it");

        holder.getFairLock(payments).unlockAsync(1).get(5, TimeUnit.SECONDS);
        holder.getFairLock(orders).unlockAsync(1).get(5, TimeUnit.SECONDS);
        queued.get(5, TimeUnit.SECONDS);
        ordersWaited.unlockAsync(2).get(5, TimeUnit.SECONDS);
        assertEquals(List.of(), REDIS.inspector().commands().keys("*" + orders.substring(0, orders.indexOf('}') + 1) + "*"),
                "nothing is left once both are idle");
    }

    @Test
    void anUnlockWakesAWaiterOfItsOwnLockNotOneOfAnotherLockWithTheSameHashTag() throws Exception {
        LockClient holder = newClient();
        LockClient waiters = newClient();
        holder.getLock(orders).lockAsync(1).get(5, TimeUnit.SECONDS);
        holder.getLock(payments).lockAsync(2).get(5, TimeUnit.SECONDS);

        // The payments waiter waits first, so a message both share would wake it, not the other.
        CompletableFuture<Void> paymentsWaiter = waiters.getLock(payments).lockAsync(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(LockKeys.of(payments).channel()) == 1);
        CompletableFuture<Void> ordersWaiter = waiters.getLock(orders).lockAsync(4);
        await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(LockKeys.of(orders).channel()) == 1);

        holder.getLock(orders).unlockAsync(1).get(5, TimeUnit.SECONDS);
        ordersWaiter.get(3, TimeUnit.SECONDS);

        holder.getLock(payments).unlockAsync(2).get(5, TimeUnit.SECONDS);
        paymentsWaiter.get(3, TimeUnit.SECONDS);
        waiters.getLock(orders).unlockAsync(4).get(5, TimeUnit.SECONDS);
        waiters.getLock(payments).unlockAsync(3).get(5, TimeUnit.SECONDS);
    }
}
