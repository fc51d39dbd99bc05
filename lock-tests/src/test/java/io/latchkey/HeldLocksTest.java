package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LockClient#heldLocks()} against a real Redis: a hold appears with its first grant, with
 * its kind, owner, token and the lease Redis confirmed, and disappears at its last release or once
 * the client gives it up for lost; waiters of the same client are counted.
 */
class HeldLocksTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long TIMEOUT_SECONDS = 5;

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private final List<LockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient newClient(Duration watchdogTimeout, Duration commandTimeout) {
        LockClient client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(watchdogTimeout).commandTimeout(commandTimeout).build());
        clients.add(client);
        return client;
    }

    private LockClient newClient() {
        return newClient(LEASE, Duration.ofSeconds(2));
    }

    private static String newName(String test) {
        return "latchkey-test:held:" + test + ":" + UUID.randomUUID();
    }

    private static HeldLock only(LockClient client) {
        List<HeldLock> held = client.heldLocks();
        assertThat(held).hasSize(1);
        return held.get(0);
    }

    @Test
    void aHeldLockAppearsWithItsTokenAndLeaseAndDisappearsAtItsLastRelease() throws Exception {
        LockClient client = newClient();
        String name = newName("plain");
        assertThat(client.heldLocks()).isEmpty();

        LockHold hold = client.getLock(name).acquireAsync(7L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        HeldLock held = only(client);
        assertThat(held.name()).isEqualTo(name);
        assertThat(held.kind()).isEqualTo("plain");
        assertThat(held.ownerId()).isEqualTo(7L);
        assertThat(held.fencingToken()).isEqualTo(hold.fencingToken());
        assertThat(held.leaseLeft()).isPositive().isLessThanOrEqualTo(LEASE);
        assertThat(held.heldFor()).isLessThan(Duration.ofSeconds(TIMEOUT_SECONDS));
        assertThat(held.waiters()).isZero();

        LockHold reentry = client.getLock(name).acquireAsync(7L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(only(client).fencingToken()).as("a re-entry is the same hold").isEqualTo(hold.fencingToken());
        reentry.close();
        assertThat(only(client).ownerId()).isEqualTo(7L);
        hold.close();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aHoldThatAnotherClientForceUnlockedDisappearsOnceTheClientLearnsOfTheLoss() throws Exception {
        // Renewed every 300 ms: the loss is found within one renewal period plus a round trip.
        LockClient client = newClient(Duration.ofMillis(900), Duration.ofMillis(200));
        String name = newName("forced");
        LockHold hold = client.getLock(name).acquireAsync(1L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(only(client).fencingToken()).isEqualTo(hold.fencingToken());

        assertThat(newClient().getLock(name).forceUnlock()).isTrue();
        hold.leaseLost().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aFixedLeaseThatRanOutDisappears() throws Exception {
        LockClient client = newClient();
        String name = newName("fixed");
        LockHold hold = client.getLock(name).acquireAsync(Duration.ofMillis(300), 1L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(only(client).leaseLeft()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(300));
        hold.leaseLost().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void theClientsOwnWaitersForAHeldLockAreCounted() throws Exception {
        LockClient client = newClient();
        String name = newName("waiters");
        DistributedLock lock = client.getLock(name);
        LockHold first = lock.acquireAsync(1L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        CompletableFuture<LockHold> second = lock.acquireAsync(2L);
        CompletableFuture<LockHold> third = client.getLock(name).acquireAsync(3L);
        await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS)).untilAsserted(() -> assertThat(only(client).waiters()).isEqualTo(2));
        assertThat(only(client).ownerId()).isEqualTo(1L);

        first.close();
        LockHold next = CompletableFuture.anyOf(second, third).thenApply(LockHold.class::cast).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS)).untilAsserted(() -> assertThat(only(client).waiters()).isEqualTo(1));
        next.close();
        LockHold last = (second.isDone() && second.join() == next ? third : second).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(only(client).waiters()).isZero();
        last.close();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void everyLockKindShowsWithItsKindButSemaphorePermitsDoNot() throws Exception {
        LockClient client = newClient();
        LockHold fair = client.getFairLock(newName("fair")).acquireAsync(1L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        DistributedReadWriteLock readWrite = client.getReadWriteLock(newName("rw"));
        LockHold write = readWrite.writeLock().acquireAsync(2L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        LockHold read = client.getReadWriteLock(newName("rw")).readLock().acquireAsync(3L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        SemaphorePermit permit = client.getSemaphore(newName("semaphore"), 2).acquireAsync().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

        assertThat(client.heldLocks()).extracting(HeldLock::kind, HeldLock::ownerId, HeldLock::fencingToken)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("fair", 1L, fair.fencingToken()),
                        org.assertj.core.groups.Tuple.tuple("write", 2L, write.fencingToken()),
                        org.assertj.core.groups.Tuple.tuple("read", 3L, read.fencingToken()));
        permit.close();
        fair.close();
        write.close();
        read.close();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aClosedClientHoldsNothing() throws Exception {
        LockClient client = newClient();
        client.getLock(newName("closed")).acquireAsync(1L).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(client.heldLocks()).hasSize(1);
        client.close();
        assertThat(client.heldLocks()).isEmpty();
    }
}
