package io.latchkey.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockConfig.ReplicaShortfall;
import io.latchkey.LockException;
import io.latchkey.testing.RedisServer;
import io.latchkey.topology.CapturedLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replica acknowledgement against a master with one replica (for the grant that survives a
 * failover, see {@link ReplicaAcknowledgementFailoverTest}): fewer acknowledgements than asked fail the
 * acquisition and give the hold back (FAIL) or keep it with a warning (WARN), plain and fair
 * alike; a user whose ACL lacks {@code WAIT} locks on without acknowledgement, told once.
 */
class ReplicaAcknowledgementTest {

    private static final Duration ACK_TIMEOUT = Duration.ofMillis(300);
    /** The rules of AclTest's lock user (every command the plain lock sends), which lack WAIT. */
    private static final List<String> LOCK_USER_WITHOUT_WAIT = List.of(
            "on", ">s3cret", "resetkeys", "~locks:*", "~latchkey:*", "resetchannels", "&latchkey:*", "-@all",
            "+hello", "+evalsha", "+eval",
            "+exists", "+hexists", "+hget", "+hset", "+hdel", "+hincrby", "+pexpire", "+pttl", "+del", "+publish",
            "+incrby", "+get", "+time", "+set",
            "+subscribe", "+unsubscribe");

    private static RedisServer master;
    private static RedisServer replica;

    private final List<LockClient> clients = new ArrayList<>();
    private final String name = "locks:ack:" + UUID.randomUUID();

    @BeforeAll
    static void startMasterAndReplica() {
        master = RedisServer.start();
        replica = RedisServer.start("--replicaof", master.host(), Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(20)).until(() -> master.info("replication", "connected_slaves").orElse("0").equals("1")
                && replica.info("replication", "master_link_status").orElse("").equals("up"));
        List<String> setUser = new ArrayList<>(List.of("ACL", "SETUSER", "locker"));
        setUser.addAll(LOCK_USER_WITHOUT_WAIT);
        master.command(setUser.toArray(String[]::new));
    }

    @AfterAll
    static void stopServers() {
        if (replica != null) {
            replica.close();
        }
        if (master != null) {
            master.close();
        }
    }

    @AfterEach
    void closeClients() {
        if (replica.isPaused()) {
            replica.resume();
        }
        clients.forEach(LockClient::close);
    }

    private LockClient newClient(String uri, int replicas, ReplicaShortfall onShortfall) {
        return newClient(LockConfig.builder(), uri, replicas, onShortfall);
    }

    private LockClient newClient(LockConfig.Builder builder, String uri, int replicas, ReplicaShortfall onShortfall) {
        LockClient client = LockClient.create(builder
                .address(uri)
                .commandTimeout(Duration.ofSeconds(2))
                .replicaAcknowledgement(replicas, ACK_TIMEOUT, onShortfall)
                .build());
        clients.add(client);
        return client;
    }

    @Test
    void fewerReplicasThanAskedFailTheAcquisitionAndReleaseTheHold() {
        DistributedLock lock = newClient(master.uri(), 2, ReplicaShortfall.FAIL).getLock(name);

        long started = System.nanoTime();
        LockException failure = assertThrows(LockException.class, lock::lock);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(failure.getMessage().contains("of 2 replicas acknowledged"), failure.getMessage());
        assertTrue(tookMillis >= ACK_TIMEOUT.toMillis() - 10, "WAIT waited its timeout, took " + tookMillis + " ms");
        assertEquals(0L, master.command("EXISTS", name), "the unacknowledged grant was given back");
        assertFalse(lock.isHeldByCurrentThread());
    }

    @Test
    void aReentryThatIsNotAcknowledgedGivesBackOnlyItsOwnLevel() {
        // Without local hand-off: with it, a re-entry is counted by the client and never reaches
        // Redis, so there is no grant for replicas to acknowledge.
        DistributedLock lock = newClient(LockConfig.builder().noLocalHandOff(), master.uri(), 1, ReplicaShortfall.FAIL).getLock(name);
        lock.lock();
        replica.pause();
        try {
            assertThrows(LockException.class, lock::lock);
        } finally {
            replica.resume();
        }
        assertTrue(lock.isHeldByCurrentThread(), "the first level stands");
        assertEquals(1, lock.getHoldCount());
        lock.unlock();
        assertEquals(0L, master.command("EXISTS", name));
    }

    @Test
    void withLocalHandOffAReentryIsCountedByTheClientAndWaitsForNoReplica() {
        DistributedLock lock = newClient(master.uri(), 1, ReplicaShortfall.FAIL).getLock(name);
        lock.lock();
        replica.pause();
        try {
            lock.lock(); // the client's hold in Redis, acknowledged when it was taken, is unchanged
        } finally {
            replica.resume();
        }
        assertEquals(2, lock.getHoldCount());
        lock.unlock();
        lock.unlock();
        assertEquals(0L, master.command("EXISTS", name));
    }

    @Test
    void aFairLockFailsAndGivesBackAnUnacknowledgedGrantToo() {
        DistributedLock lock = newClient(master.uri(), 2, ReplicaShortfall.FAIL).getFairLock(name);

        assertThrows(LockException.class, lock::lock);
        assertEquals(0L, master.command("EXISTS", name), "the unacknowledged grant was given back");
        DistributedLock other = newClient(master.uri(), 1, ReplicaShortfall.FAIL).getFairLock(name);
        assertTrue(other.tryLock(), "the lock is free for others");
        other.unlock();
    }

    @Test
    void withWarnAnUnacknowledgedGrantIsHeldAndAWarningLogged() {
        DistributedLock lock = newClient(master.uri(), 1, ReplicaShortfall.WARN).getLock(name);
        try (CapturedLog log = new CapturedLog()) {
            replica.pause();
            lock.lock();
            replica.resume();
            assertTrue(lock.isHeldByCurrentThread());
            assertTrue(log.hasLine("Lock '" + name + "' is held although only 0 of 1 replicas acknowledged it"));
        }
        lock.unlock();
    }

    @Test
    void aUserWithoutWaitLocksWithoutAcknowledgementAndIsToldOnce() throws Exception {
        String uri = "redis://locker:s3cret@" + master.host() + ":" + master.port();
        LockClient client = newClient(uri, 2, ReplicaShortfall.FAIL);
        try (CapturedLog log = new CapturedLog()) {
            for (int i = 0; i < 3; i++) {
                DistributedLock lock = client.getLock(name + ":" + i);
                // Two replicas are asked for and there is one: only a refused WAIT lets this succeed.
                lock.lock();
                lock.unlock();
            }
            assertEquals(1, log.count("refuses WAIT"), "the refusal is logged once");
        }
    }

    @Test
    void aReplicaAcknowledgementTimeoutNotBelowTheCommandTimeoutIsRejected() {
        IllegalArgumentException rejected = assertThrows(IllegalArgumentException.class, () -> LockConfig.builder()
                .address(master.uri()).commandTimeout(Duration.ofMillis(500))
                .replicaAcknowledgement(1, Duration.ofMillis(500), ReplicaShortfall.FAIL).build());
        assertTrue(rejected.getMessage().contains("replicaAcknowledgement timeout (PT0.5S)"), rejected.getMessage());
    }

    @Test
    void anAsyncAcquisitionFailsWithTheLockException() {
        DistributedLock lock = newClient(master.uri(), 2, ReplicaShortfall.FAIL).getLock(name);
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> lock.lockAsync(7).get(5, TimeUnit.SECONDS));
        assertInstanceOf(LockException.class, failure.getCause());
    }
}
