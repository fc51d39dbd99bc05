package io.latchkey.topology;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ACL users given in the URI ({@code redis://user:password@host}): a user allowed only the
 * commands Latchkey sends, on its own keys and unlock channels, can use every plain-lock
 * operation, and with the read-write lock's few more every read-write lock operation; a wrong
 * password fails at {@code create} and a missing permission at first use, each with a message
 * that says so.
 */
class AclTest {

    /**
     * Everything the plain lock sends, directly or from its scripts: the connection handshake
     * (HELLO with its AUTH option; Lettuce's CLIENT SETINFO on Redis 7.2+ may be refused), the
     * scripts (EVALSHA, EVAL on NOSCRIPT) and what they run (EXISTS, HEXISTS, HGET, HSET, HDEL,
     * HINCRBY, PEXPIRE, PTTL, DEL, PUBLISH; for the fencing counter GET, TIME and INCRBY, since
     * 0.3: a token is the greater of the counter + 1 and Redis's clock), the queries (EXISTS,
     * HGET, PTTL) and the wake-ups (SUBSCRIBE, UNSUBSCRIBE); with local hand-off, the default,
     * also GET, SET and DEL of the lock's
     * waiting mark and turn ({@code latchkey:{N}:waiting}, {@code latchkey:{N}:turn}), in the
     * scripts and, for the mark, directly. Keys are limited to the application's lock names
     * ({@code locks:*}) and Latchkey's own {@code latchkey:*} (the fencing counters
     * {@code latchkey:fence:{S}}, the waiting marks and turns, and the unlock channel, which the
     * scripts declare as a key so that Cluster routes its sharded publish), channels to
     * {@code latchkey:*}.
     */
    static final List<String> LOCK_USER_RULES = List.of(
            "on", ">s3cret", "resetkeys", "~locks:*", "~latchkey:*", "resetchannels", "&latchkey:*", "-@all",
            "+hello",
            "+evalsha", "+eval",
            "+exists", "+hexists", "+hget", "+hset", "+hdel", "+hincrby", "+pexpire", "+pttl", "+del", "+publish",
            "+incrby", "+get", "+time", "+set",
            "+subscribe", "+unsubscribe");

    /**
     * What the read-write lock's scripts send besides: the sorted sets of the holds' leases and of
     * the waiting writers (each hold's lease ends by Redis's clock, TIME, which the plain lock's
     * tokens read too).
     */
    static final List<String> READ_WRITE_LOCK_RULES = List.of(
            "+zadd", "+zrem", "+zscore", "+zcount", "+zrange", "+zrangebyscore", "+zrevrangebyscore",
            "+zremrangebyscore");

    private static RedisServer redis;

    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        List<String> setUser = new ArrayList<>(List.of("ACL", "SETUSER", "locker"));
        setUser.addAll(LOCK_USER_RULES);
        redis.command(setUser.toArray(String[]::new));
        List<String> noScripts = new ArrayList<>(setUser);
        noScripts.set(2, "reader");
        noScripts.removeAll(List.of("+evalsha", "+eval"));
        redis.command(noScripts.toArray(String[]::new));
        List<String> rulesOf01 = new ArrayList<>(setUser);
        rulesOf01.set(2, "locker01");
        rulesOf01.removeAll(List.of("+hset", "+hdel", "+incr", "+incrby", "+get", "+set"));
        redis.command(rulesOf01.toArray(String[]::new));
        List<String> readWrite = new ArrayList<>(setUser);
        readWrite.set(2, "rw-locker");
        readWrite.addAll(READ_WRITE_LOCK_RULES);
        redis.command(readWrite.toArray(String[]::new));
        List<String> rulesBeforeFencing = new ArrayList<>(setUser);
        rulesBeforeFencing.set(2, "locker-unfenced");
        rulesBeforeFencing.removeAll(List.of("+incr", "+incrby"));
        redis.command(rulesBeforeFencing.toArray(String[]::new));
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient connect(String user, String password, Duration lease) {
        LockClient client = LockClient.create(LockConfig.builder()
                .address("redis://" + user + ":" + password + "@" + redis.host() + ":" + redis.port())
                .watchdogTimeout(lease)
                .commandTimeout(Duration.ofSeconds(1))
                .build());
        clients.add(client);
        return client;
    }

    @Test
    void aUserAllowedOnlyTheLockCommandsCanUseEveryLockOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        Duration lease = Duration.ofMillis(2500);
        DistributedLock held = connect("locker", "s3cret", lease).getLock(name);
        DistributedLock awaited = connect("locker", "s3cret", lease).getLock(name);

        held.lockAsync(1).get(5, TimeUnit.SECONDS);
        held.lockAsync(1).get(5, TimeUnit.SECONDS);
        assertTrue(held.isLocked());
        assertTrue(held.isHeldBy(1));
        assertTrue(held.remainingLease().toMillis() > 0);
        // The watchdog's renewal script runs as this user too.
        await().during(lease.multipliedBy(3).dividedBy(2)).atMost(lease.multipliedBy(3)).until(awaited::isLocked);

        CompletableFuture<Void> waiter = awaited.lockAsync(2);
        held.unlockAsync(1).get(5, TimeUnit.SECONDS);
        assertFalse(waiter.isDone(), "one hold is left");
        held.unlockAsync(1).get(5, TimeUnit.SECONDS);
        waiter.get(5, TimeUnit.SECONDS);
        assertTrue(held.forceUnlock());
        assertFalse(awaited.isLocked());
    }

    @Test
    void aUserAllowedTheReadWriteLocksCommandsTooCanUseEveryReadWriteLockOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        Duration lease = Duration.ofMillis(2500);
        DistributedReadWriteLock reading = connect("rw-locker", "s3cret", lease).getReadWriteLock(name);
        DistributedReadWriteLock writing = connect("rw-locker", "s3cret", lease).getReadWriteLock(name);

        reading.readLock().lockAsync(1).get(5, TimeUnit.SECONDS);
        assertTrue(reading.readLock().isHeldBy(1));
        assertTrue(writing.readLock().remainingLease().toMillis() > 0);
        CompletableFuture<Void> writer = writing.writeLock().lockAsync(2);
        // The watchdog's renewal script runs as this user too, and the writer keeps its place.
        await().during(lease.multipliedBy(3).dividedBy(2)).atMost(lease.multipliedBy(3))
                .until(() -> writing.readLock().isLocked() && !writer.isDone());
        assertFalse(reading.readLock().tryLockAsync(Duration.ofMillis(100), lease, 3).get(5, TimeUnit.SECONDS),
                "a new reader waits behind the waiting writer");

        reading.readLock().unlockAsync(1).get(5, TimeUnit.SECONDS);
        writer.get(5, TimeUnit.SECONDS);
        assertFalse(reading.writeLock().tryLockAsync(Duration.ofMillis(100), lease, 4).get(5, TimeUnit.SECONDS),
                "a writer that gives up leaves the waiting writers");
        assertTrue(reading.writeLock().forceUnlock());
        assertFalse(writing.writeLock().isLocked());
    }

    @Test
    void aWrongPasswordFailsAtCreateWithAClearMessage() {
        LockException wrongPassword = assertThrows(LockRefusedException.class, () -> connect("locker", "wrong", Duration.ofSeconds(10)));
        assertTrue(wrongPassword.getMessage().contains("refused the credentials"), wrongPassword.getMessage());
        assertFalse(wrongPassword.getMessage().contains("wrong"), "the password stays out of the message: " + wrongPassword.getMessage());

        LockException unknownUser = assertThrows(LockRefusedException.class, () -> connect("nobody", "s3cret", Duration.ofSeconds(10)));
        assertTrue(unknownUser.getMessage().contains("refused the credentials"), unknownUser.getMessage());
    }

    @Test
    void aMissingPermissionFailsAtFirstUseNamingIt() {
        DistributedLock lock = connect("reader", "s3cret", Duration.ofSeconds(10)).getLock("locks:" + UUID.randomUUID());
        ExecutionException failure = assertThrows(ExecutionException.class, () -> lock.lockAsync(1).get(5, TimeUnit.SECONDS));
        assertEquals(LockRefusedException.class, failure.getCause().getClass(), "Redis answered with an error");
        assertTrue(failure.getCause().getMessage().contains("NOPERM"), failure.getCause().getMessage());
    }

    /**
     * A user with 0.1's minimal ACL, which lacks HSET (and INCR and INCRBY, which fencing tokens
     * added, and GET and SET, which local hand-off added): the acquire is refused before it
     * changes anything. Before the scripts wrote the call's id first, the hold count was written
     * and the script then failed before PEXPIRE, leaving a lock that never expires.
     */
    @Test
    void aUserWithoutHsetIsRefusedAndLeavesNoLockBehind() {
        String name = "locks:" + UUID.randomUUID();
        DistributedLock lock = connect("locker01", "s3cret", Duration.ofSeconds(10)).getLock(name);

        ExecutionException failure = assertThrows(ExecutionException.class, () -> lock.lockAsync(1).get(5, TimeUnit.SECONDS));

        assertTrue(failure.getCause().getMessage().contains("can't run this command"), failure.getCause().getMessage());
        assertEquals(0L, redis.command("EXISTS", name), "nothing was written");
        assertEquals(0L, redis.command("EXISTS", LockKeys.of(name).fenceCounter()), "nothing was written");
    }

    /**
     * A user with the rules that sufficed before fencing tokens, which lack INCR and INCRBY (with
     * which a new hold takes its token, or its block of tokens for local hand-off): the acquire is refused
     * before it changes the lock, so the lock stays free for a user with the full rules.
     * Had the script written to the lock hash before its INCR was refused, the hash would be left
     * without an expiry and with no hold in it, and nobody could take the lock again.
     */
    @Test
    void aUserWithoutIncrIsRefusedAndLeavesTheLockFreeForOthers() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        DistributedLock refused = connect("locker-unfenced", "s3cret", Duration.ofSeconds(10)).getLock(name);

        ExecutionException failure = assertThrows(ExecutionException.class, () -> refused.lockAsync(1).get(5, TimeUnit.SECONDS));

        assertEquals(LockRefusedException.class, failure.getCause().getClass(), "Redis answered with an error");
        assertTrue(failure.getCause().getMessage().contains("can't run this command"), failure.getCause().getMessage());
        assertEquals(0L, redis.command("EXISTS", name), "nothing was written");
        DistributedLock allowed = connect("locker", "s3cret", Duration.ofSeconds(10)).getLock(name);
        assertTrue(allowed.tryLock(), "the lock is free");
        allowed.unlock();
    }
}
