package io.latchkey.topology;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import io.latchkey.LockRefusedException;
import io.latchkey.SemaphorePermit;
import io.latchkey.TimingBound;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ACL users given in the URI ({@code redis://user:password@host}). For each lock kind, a user
 * with exactly the commands of the kind's row of the README's Minimal ACL (read from the README),
 * its lock names, and its key prefix's keys and channels ({@code ~acl:* &acl:*}) runs every
 * operation of the kind: nothing is refused, and every command of the row was called (Redis's
 * own command counts say so), so the row is neither short nor padded. A wrong password fails at
 * {@code create}, and a missing permission at first use, each with a message that says so.
 */
@TimingBound
class AclTest {

    /**
     * The plain lock's row with local hand-off (the default), on the default prefix: the
     * connection handshake (HELLO with its AUTH option; Lettuce's CLIENT SETINFO on Redis 7.2+
     * may be refused), the scripts (EVALSHA, EVAL on NOSCRIPT) and what they run, the queries,
     * the wake-ups, and with local hand-off the waiting mark and turn. Keys are limited to the
     * application's lock names ({@code locks:*}) and the prefix's ({@code latchkey:*}: fencing
     * counters, waiting marks and turns, and the unlock channel, which the scripts declare as a
     * key so that Cluster routes its sharded publish), channels to {@code latchkey:*}.
     */
    static final List<String> LOCK_USER_RULES = MinimalAcl.rules("s3cret", "latchkey", "locks:*",
            MinimalAcl.commands(MinimalAcl.PLAIN_WITH_HAND_OFF));

    /** The key prefix of the per-kind users. */
    private static final String PREFIX = "acl";
    /**
     * The watchdog lease of the per-kind users: short, since every row waits one and a half of it
     * to see a renewal run as the user, yet more than twice {@link #COMMAND_TIMEOUT}, as the
     * configuration requires.
     */
    private static final Duration LEASE = Duration.ofMillis(1500);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(600);
    private static final Pattern CALLS = Pattern.compile("(?m)^cmdstat_([a-z|]+):calls=(\\d+)");
    /**
     * Listed commands that the operations below do not call, each for a reason: the plain lock's
     * HDEL only undoes a grant whose answer was lost (release.lua's 'undo'). The fair lock's row
     * has no such exemption: its grant and a waiter that gives up delete the waiter's secret.
     */
    private static final Set<String> ONLY_UNDER_FAULTS = Set.of("+hdel");

    private static RedisServer redis;

    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        redis.command(MinimalAcl.setUser("locker", LOCK_USER_RULES));
        redis.command(MinimalAcl.setUser("reader", without(LOCK_USER_RULES, "+evalsha", "+eval")));
        redis.command(MinimalAcl.setUser("locker01", without(LOCK_USER_RULES, "+hset", "+hdel", "+incr", "+incrby", "+get", "+set")));
        redis.command(MinimalAcl.setUser("locker-unfenced", without(LOCK_USER_RULES, "+incr", "+incrby")));
    }

    private static List<String> without(List<String> rules, String... removed) {
        List<String> left = new ArrayList<>(rules);
        left.removeAll(List.of(removed));
        return left;
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

    /** An operation of a kind that may throw, as the user runs it. */
    private interface Operations {
        void run() throws Exception;
    }

    /**
     * Creates the user of a row on each server, starts every server's counts afresh (an empty
     * script cache, so that EVAL's fallback runs too), runs the operations, and checks that no
     * command was refused and that every command of the row was called.
     *
     * @param user the user's name
     * @param commands exactly the commands of its row
     * @param uncalled the commands of the row that these operations do not call, each with its reason above
     */
    private void asUser(String user, List<String> commands, Set<String> uncalled, List<RedisServer> servers,
                        Operations operations) throws Exception {
        for (RedisServer server : servers) {
            server.command(MinimalAcl.setUser(user, MinimalAcl.rules("s3cret", PREFIX, "locks:*", commands)));
            server.command("SCRIPT", "FLUSH");
            server.command("ACL", "LOG", "RESET");
            server.command("CONFIG", "RESETSTAT");
        }
        operations.run();
        for (RedisServer server : servers) {
            // Lettuce sends CLIENT SETINFO on connect, which Redis 7.2+ may refuse; Lettuce goes on without it.
            List<String> refused = ((List<?>) server.command("ACL", "LOG")).stream().map(entry -> (List<?>) entry)
                    .map(entry -> entry.get(entry.indexOf("reason") + 1) + " " + entry.get(entry.indexOf("object") + 1))
                    .filter(refusal -> !refusal.equals("command client|setinfo")).toList();
            assertEquals(List.of(), refused, user + " was refused nothing");
        }
        Set<String> expected = new TreeSet<>(commands);
        expected.removeAll(uncalled);
        // Unsubscribing may follow the last waiter's leaving by a linger.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Set<String> called = new TreeSet<>();
            for (RedisServer server : servers) {
                called.addAll(called(server));
            }
            Set<String> missing = new TreeSet<>(expected);
            missing.removeAll(called);
            assertEquals(Set.of(), missing, user + " called every command of its row but " + uncalled);
        });
    }

    /** @return the commands the server ran since its counts were reset, as ACL rules name them ({@code +hget}) */
    private static Set<String> called(RedisServer server) {
        Matcher calls = CALLS.matcher(String.valueOf(server.command("INFO", "commandstats")));
        Set<String> called = new TreeSet<>();
        while (calls.find()) {
            if (Long.parseLong(calls.group(2)) > 0) {
                called.add("+" + calls.group(1));
            }
        }
        return called;
    }

    private LockClient connect(String user, UnaryOperator<LockConfig.Builder> settings, RedisServer... servers) {
        List<String> uris = List.of(servers).stream()
                .map(server -> "redis://" + user + ":s3cret@" + server.host() + ":" + server.port()).toList();
        LockConfig.Builder builder = LockConfig.builder().keyPrefix(PREFIX).watchdogTimeout(LEASE)
                .commandTimeout(COMMAND_TIMEOUT);
        builder = servers.length == 1 ? builder.address(uris.get(0)) : builder.redLockAddresses(uris.toArray(String[]::new));
        LockClient client = LockClient.create(settings.apply(builder).build());
        clients.add(client);
        return client;
    }

    /**
     * Every operation of a {@link DistributedLock}, from two clients of the user: blocking and async
     * acquisition, re-entry, the queries, the watchdog's renewal, a try that runs out, a waiter
     * woken by the unlock, a fixed lease and a hold's token, and force-unlocks.
     */
    private static void everyLockOperation(DistributedLock held, DistributedLock awaited) throws Exception {
        held.lock();
        held.lock();
        assertEquals(2, held.getHoldCount());
        assertTrue(held.isHeldByCurrentThread());
        assertTrue(awaited.isLocked());
        assertTrue(awaited.isLockedAsync().get(5, TimeUnit.SECONDS));
        assertTrue(awaited.remainingLease().compareTo(Duration.ZERO) > 0);
        // The watchdog's renewal script runs as this user too.
        await().during(LEASE.multipliedBy(3).dividedBy(2)).atMost(LEASE.multipliedBy(3)).until(awaited::isLocked);
        assertFalse(awaited.tryLock(Duration.ofMillis(100)), "held by the other client");
        assertFalse(awaited.tryLockAsync(Duration.ofMillis(100), LEASE, 3).get(5, TimeUnit.SECONDS));

        CompletableFuture<Void> waiter = awaited.lockAsync(2);
        CompletableFuture<Void> next = awaited.lockAsync(LEASE, 4);
        held.unlock();
        assertFalse(waiter.isDone(), "one hold is left");
        held.unlock();
        assertEquals(0, held.getHoldCount());
        CompletableFuture.anyOf(waiter, next).get(5, TimeUnit.SECONDS);
        long first = waiter.isDone() ? 2 : 4;
        assertTrue(awaited.isHeldBy(first));
        awaited.unlockAsync(first).get(5, TimeUnit.SECONDS);
        (first == 2 ? next : waiter).get(5, TimeUnit.SECONDS);
        awaited.unlockAsync(first == 2 ? 4 : 2).get(5, TimeUnit.SECONDS);

        LockHold fixed = held.acquire(LEASE);
        assertTrue(fixed.parts().stream().allMatch(part -> part.fencingToken() > 0));
        fixed.close();
        awaited.lockAsync(Duration.ofSeconds(30), 5).get(5, TimeUnit.SECONDS);
        assertTrue(held.forceUnlock());
        assertFalse(held.isLocked());
        awaited.acquireAsync(6).get(5, TimeUnit.SECONDS);
        assertTrue(held.forceUnlockAsync().get(5, TimeUnit.SECONDS));
        assertFalse(awaited.isLockedAsync().get(5, TimeUnit.SECONDS));
    }

    @Test
    void thePlainLocksRowWithoutLocalHandOffCoversEveryOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        asUser("plain", MinimalAcl.commands(MinimalAcl.PLAIN), ONLY_UNDER_FAULTS, List.of(redis), () -> everyLockOperation(
                connect("plain", LockConfig.Builder::noLocalHandOff, redis).getLock(name),
                connect("plain", LockConfig.Builder::noLocalHandOff, redis).getLock(name)));
    }

    @Test
    void thePlainLocksRowWithLocalHandOffCoversEveryOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        asUser("plain-hand-off", MinimalAcl.commands(MinimalAcl.PLAIN_WITH_HAND_OFF), ONLY_UNDER_FAULTS, List.of(redis), () -> {
            LockClient one = connect("plain-hand-off", UnaryOperator.identity(), redis);
            everyLockOperation(one.getLock(name), connect("plain-hand-off", UnaryOperator.identity(), redis).getLock(name));
            // Two owners of one client pass the hold locally, a third client's try marks itself waiting.
            DistributedLock local = one.getLock(name);
            local.lockAsync(7).get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> handedOff = local.lockAsync(8);
            local.unlockAsync(7).get(5, TimeUnit.SECONDS);
            handedOff.get(5, TimeUnit.SECONDS);
            local.unlockAsync(8).get(5, TimeUnit.SECONDS);
        });
    }

    @Test
    void theFairLocksRowCoversEveryOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        asUser("fair", MinimalAcl.commands(MinimalAcl.FAIR), Set.of(), List.of(redis), () -> everyLockOperation(
                connect("fair", UnaryOperator.identity(), redis).getFairLock(name),
                connect("fair", UnaryOperator.identity(), redis).getFairLock(name)));
    }

    @Test
    void theRedLockMastersRowCoversEveryOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        List<RedisServer> masters = List.of(RedisServer.start(), RedisServer.start(), RedisServer.start());
        try {
            // One master's counter ahead of the others', so that the RedLock raises the others' (GET, SET).
            masters.get(0).command("SET", LockKeys.of(name, PREFIX).fenceCounter(), "10");
            RedisServer[] servers = masters.toArray(RedisServer[]::new);
            // The default attempt timeout (100 ms) was missed by every master under load, at a client's first call.
            UnaryOperator<LockConfig.Builder> patient = builder -> builder.redLockAttemptTimeout(COMMAND_TIMEOUT);
            asUser("redlock", MinimalAcl.commands(MinimalAcl.RED_LOCK_MASTER), ONLY_UNDER_FAULTS, masters, () -> everyLockOperation(
                    connect("redlock", patient, servers).getRedLock(name),
                    connect("redlock", patient, servers).getRedLock(name)));
        } finally {
            closeClients();
            clients.clear();
            masters.forEach(RedisServer::close);
        }
    }

    @Test
    void theReadWriteLocksRowCoversEveryOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        asUser("rw", MinimalAcl.commands(MinimalAcl.READ_WRITE), Set.of(), List.of(redis), () -> {
            DistributedReadWriteLock reading = connect("rw", UnaryOperator.identity(), redis).getReadWriteLock(name);
            DistributedReadWriteLock writing = connect("rw", UnaryOperator.identity(), redis).getReadWriteLock(name);

            reading.readLock().lock();
            reading.readLock().lock();
            assertEquals(2, reading.readLock().getHoldCount());
            writing.readLock().lockAsync(1).get(5, TimeUnit.SECONDS);
            assertTrue(writing.readLock().isHeldBy(1));
            assertTrue(writing.readLock().remainingLease().toMillis() > 0);
            CompletableFuture<Void> writer = writing.writeLock().lockAsync(2);
            // The watchdog's renewal script runs as this user too, and the writer keeps its place.
            await().during(LEASE.multipliedBy(3).dividedBy(2)).atMost(LEASE.multipliedBy(3))
                    .until(() -> writing.readLock().isLocked() && !writer.isDone());
            assertFalse(writing.readLock().tryLockAsync(Duration.ofMillis(100), LEASE, 3).get(5, TimeUnit.SECONDS),
                    "a new reader waits behind the waiting writer");
            reading.readLock().unlock();
            reading.readLock().unlock();
            writing.readLock().unlockAsync(1).get(5, TimeUnit.SECONDS);
            writer.get(5, TimeUnit.SECONDS);
            assertTrue(reading.writeLock().isLockedAsync().get(5, TimeUnit.SECONDS));
            CompletableFuture<Void> reader = reading.readLock().lockAsync(4);
            assertFalse(reading.writeLock().tryLockAsync(Duration.ofMillis(100), LEASE, 5).get(5, TimeUnit.SECONDS),
                    "a writer that gives up leaves the waiting writers");
            writing.writeLock().unlockAsync(2).get(5, TimeUnit.SECONDS);
            reader.get(5, TimeUnit.SECONDS);
            reading.readLock().unlockAsync(4).get(5, TimeUnit.SECONDS);

            // A lock of another kind on the name: the read-write lock answers with its lease (PTTL).
            DistributedLock plain = connect("rw", LockConfig.Builder::noLocalHandOff, redis).getLock(name);
            plain.lockAsync(LEASE, 9).get(5, TimeUnit.SECONDS);
            assertFalse(reading.writeLock().tryLockAsync(Duration.ZERO, LEASE, 10).get(5, TimeUnit.SECONDS));
            plain.unlockAsync(9).get(5, TimeUnit.SECONDS);

            LockHold fixed = reading.writeLock().acquire(LEASE);
            assertTrue(fixed.fencingToken() > 0);
            fixed.close();
            writing.writeLock().lockAsync(6).get(5, TimeUnit.SECONDS);
            assertTrue(reading.writeLock().forceUnlock());
            writing.readLock().lockAsync(7).get(5, TimeUnit.SECONDS);
            assertTrue(reading.readLock().forceUnlockAsync().get(5, TimeUnit.SECONDS));
            assertFalse(writing.readLock().isLocked());
        });
    }

    @Test
    void theSemaphoresRowCoversEveryOperation() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        asUser("semaphore", MinimalAcl.commands(MinimalAcl.SEMAPHORE), Set.of(), List.of(redis), () -> {
            DistributedSemaphore mine = connect("semaphore", UnaryOperator.identity(), redis).getSemaphore(name, 2);
            DistributedSemaphore theirs = connect("semaphore", UnaryOperator.identity(), redis).getSemaphore(name, 2);

            SemaphorePermit first = mine.acquire();
            Optional<SemaphorePermit> second = mine.tryAcquire(Duration.ofSeconds(1));
            assertTrue(second.isPresent());
            assertEquals(0, theirs.availablePermits());
            // The watchdog's renewal script runs as this user too.
            await().during(LEASE.multipliedBy(3).dividedBy(2)).atMost(LEASE.multipliedBy(3))
                    .until(() -> theirs.availablePermits() == 0);
            assertTrue(theirs.tryAcquire(Duration.ofMillis(100)).isEmpty());
            assertTrue(theirs.tryAcquireAsync(Duration.ZERO, LEASE).get(5, TimeUnit.SECONDS).isEmpty());
            CompletableFuture<SemaphorePermit> waiting = theirs.acquireAsync();
            first.close();
            SemaphorePermit woken = waiting.get(5, TimeUnit.SECONDS);
            assertThrows(IllegalStateException.class, () -> connect("semaphore", UnaryOperator.identity(), redis)
                    .getSemaphore(name, 3).tryAcquire(Duration.ZERO), "another limit is in force");
            woken.close();
            second.get().close();
            Optional<SemaphorePermit> fixed = theirs.tryAcquire(Duration.ZERO, LEASE);
            assertTrue(fixed.isPresent());
            fixed.get().close();
            assertEquals(2, mine.availablePermits());
        });
    }

    /** A multi-lock sends nothing of its own: the union of its parts' rows is all it needs. */
    @Test
    void aMultiLockNeedsTheRowsOfItsParts() throws Exception {
        String plain = "locks:" + UUID.randomUUID();
        String fair = "locks:" + UUID.randomUUID();
        List<String> union = MinimalAcl.union(MinimalAcl.PLAIN_WITH_HAND_OFF, MinimalAcl.FAIR);
        // Nothing refused is the point; which of the parts' commands a multi-lock's operations call is theirs to check.
        asUser("multi", union, Set.copyOf(union), List.of(redis), () -> {
            LockClient one = connect("multi", UnaryOperator.identity(), redis);
            LockClient other = connect("multi", UnaryOperator.identity(), redis);
            everyLockOperation(one.getMultiLock(one.getLock(plain), one.getFairLock(fair)),
                    other.getMultiLock(other.getFairLock(fair), other.getLock(plain)));
        });
    }

    /**
     * The 0.2 README gave the fair lock no row of its own: a user with the plain lock's row lacks
     * LINDEX (and LPOP, RPUSH, LREM, TIME and the sorted sets). Its release is refused before it
     * changed anything, so the lock stays held by its owner instead of being deleted while the
     * unlock throws.
     */
    @Test
    void aFairLockUserWithoutLindexIsRefusedAtUnlockAndKeepsTheLock() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        redis.command(MinimalAcl.setUser("fair-no-lindex", MinimalAcl.rules("s3cret", PREFIX, "locks:*",
                without(MinimalAcl.commands(MinimalAcl.FAIR), "+lindex"))));
        DistributedLock fair = connect("fair-no-lindex", UnaryOperator.identity(), redis).getFairLock(name);
        fair.lockAsync(1).get(5, TimeUnit.SECONDS);

        ExecutionException refused = assertThrows(ExecutionException.class, () -> fair.unlockAsync(1).get(5, TimeUnit.SECONDS));

        assertEquals(LockRefusedException.class, refused.getCause().getClass(), refused.getCause().toString());
        assertTrue(fair.isLocked(), "the release changed nothing");
        assertEquals("1", redis.command("HGET", name, fieldOf(name, 1)));
    }

    /**
     * The fair release that grants reads the line (TIME, ZSCORE, the counter, the waiter's secret)
     * before its first write: a user without ZSCORE, which it needs only once someone waits, is
     * refused at that release with the lock still its own, not after the lock was deleted while
     * its waiter was neither granted nor woken.
     */
    @Test
    void aFairLockUserWithoutZscoreIsRefusedAtTheReleaseThatWouldGrantAndKeepsTheLock() throws Exception {
        String name = "locks:" + UUID.randomUUID();
        redis.command(MinimalAcl.setUser("fair-no-zscore", MinimalAcl.rules("s3cret", PREFIX, "locks:*",
                without(MinimalAcl.commands(MinimalAcl.FAIR), "+zscore"))));
        redis.command(MinimalAcl.setUser("fair-waiter", MinimalAcl.rules("s3cret", PREFIX, "locks:*",
                MinimalAcl.commands(MinimalAcl.FAIR))));
        DistributedLock fair = connect("fair-no-zscore", UnaryOperator.identity(), redis).getFairLock(name);
        fair.lockAsync(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<LockHold> waiter = connect("fair-waiter", UnaryOperator.identity(), redis).getFairLock(name).acquireAsync(2);
        String queue = LockKeys.of(name, PREFIX).derived("queue");
        await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(redis.command("LLEN", queue)));

        ExecutionException refused = assertThrows(ExecutionException.class, () -> fair.unlockAsync(1).get(5, TimeUnit.SECONDS));

        assertEquals(LockRefusedException.class, refused.getCause().getClass(), refused.getCause().toString());
        assertTrue(fair.isLocked(), "the release changed nothing");
        assertEquals("1", redis.command("HGET", name, fieldOf(name, 1)));
        assertEquals(1L, redis.command("LLEN", queue), "its waiter keeps its place");
        assertFalse(waiter.isDone());
    }

    /** The semaphore's ZCARD and PEXPIREAT, which the 0.2 README did not list: each is needed by the first permit. */
    @Test
    void aSemaphoreUserWithoutZcardOrPexpireatCannotTakeAPermit() {
        for (String missing : List.of("+zcard", "+pexpireat")) {
            String user = "semaphore-no-" + missing.substring(1);
            redis.command(MinimalAcl.setUser(user, MinimalAcl.rules("s3cret", PREFIX, "locks:*",
                    without(MinimalAcl.commands(MinimalAcl.SEMAPHORE), missing))));
            DistributedSemaphore semaphore = connect(user, UnaryOperator.identity(), redis).getSemaphore("locks:" + UUID.randomUUID(), 1);
            // The first permit of an empty semaphore needs PEXPIREAT; ZCARD is read once a permit is out.
            ExecutionException refused = assertThrows(ExecutionException.class, () -> {
                semaphore.tryAcquireAsync(Duration.ZERO, LEASE).get(5, TimeUnit.SECONDS).ifPresent(SemaphorePermit::close);
                semaphore.tryAcquireAsync(Duration.ZERO, LEASE).get(5, TimeUnit.SECONDS);
            }, missing);
            assertEquals(LockRefusedException.class, refused.getCause().getClass(), refused.getCause().toString());
        }
    }

    /** @return the hash field of an owner of the one client that holds {@code name} */
    private static String fieldOf(String name, long owner) {
        Object fields = redis.command("HKEYS", name);
        return ((List<?>) fields).stream().map(String::valueOf).filter(field -> field.endsWith(":" + owner))
                .collect(Collectors.toList()).get(0);
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
