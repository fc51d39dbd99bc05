package io.latchkey.topology;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.TimingBound;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisCluster;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The plain and the fair lock on a Redis Cluster of three masters: mutual exclusion across
 * clients on names of every master, unlock messages on the slot's own master (sharded pub/sub on
 * Redis 7), watchdog renewal of holds on many slots, a slot moved to another master while
 * its lock is held and awaited (ASK during the migration, MOVED after it), and a channel left
 * while the pub/sub connection was down, which the reconnect must not bring back for good.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterLockTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    /** What a Cluster client needs beyond {@link AclTest#LOCK_USER_RULES}: the README's row. */
    static final List<String> CLUSTER_USER_RULES = MinimalAcl.commands(MinimalAcl.CLUSTER);
    /** ... and on Redis 7, for sharded pub/sub: the README's row. */
    static final List<String> SHARDED_USER_RULES = MinimalAcl.commands(MinimalAcl.SHARDED_PUB_SUB);
    /** Wrong-password connects per run: Lettuce reported about one in 70 to 130 as a closed connection before LoginProbe asked again. */
    private static final int WRONG_PASSWORD_ATTEMPTS = 100;

    private RedisCluster cluster;
    private boolean sharded;
    private final List<LockClient> clients = new ArrayList<>();
    private ExecutorService threads;

    /** @return the cluster the tests run on: three masters of the default {@code redis-server} */
    protected RedisCluster startCluster() {
        return RedisCluster.start(3, 0);
    }

    /** @return why this host cannot run these tests, if it cannot; each test is then skipped with it */
    protected Optional<String> skipReason() {
        return Optional.empty();
    }

    @BeforeAll
    void startTheCluster() {
        if (skipReason().isEmpty()) {
            cluster = startCluster();
            sharded = cluster.nodes().get(0).majorVersion() >= 7;
        }
    }

    @AfterAll
    void stopTheCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void startThreads() {
        assumeTrue(skipReason().isEmpty(), () -> skipReason().orElse(""));
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        clients.forEach(LockClient::close);
        clients.clear();
        if (threads != null) {
            threads.shutdownNow();
            threads.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private LockClient newClient(Duration watchdogTimeout) {
        LockClient client = LockClient.create(LockConfig.builder()
                .clusterAddresses(cluster.seedUris())
                .watchdogTimeout(watchdogTimeout)
                .commandTimeout(Duration.ofSeconds(1))
                .build());
        clients.add(client);
        return client;
    }

    /** @return {@code perMaster} fresh lock names on each master, so every test touches all three */
    static List<String> namesOnEveryMaster(RedisCluster cluster, String prefix, int perMaster) {
        List<String> names = new ArrayList<>();
        for (RedisServer master : cluster.masters()) {
            int found = 0;
            for (int i = 0; found < perMaster; i++) {
                String name = prefix + ":" + UUID.randomUUID() + ":" + i;
                if (cluster.masterFor(name) == master) {
                    names.add(name);
                    found++;
                }
            }
        }
        return names;
    }

    @Test
    void twoClientsExcludeEachOtherOnNamesOfEveryMaster() throws Exception {
        List<String> names = namesOnEveryMaster(cluster, "latchkey-test:cluster:exclusion", 2);
        OverlapDetector detector = new OverlapDetector();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        int threadsPerClient = 4;
        int rounds = 30;
        List<CompletableFuture<Void>> contenders = new ArrayList<>();
        for (LockClient client : List.of(newClient(Duration.ofSeconds(10)), newClient(Duration.ofSeconds(10)))) {
            for (int t = 0; t < threadsPerClient; t++) {
                contenders.add(CompletableFuture.runAsync(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < rounds; i++) {
                            String name = names.get(ThreadLocalRandom.current().nextInt(names.size()));
                            DistributedLock lock = client.getLock(name);
                            lock.lock();
                            detector.enter(name);
                            Thread.yield();
                            detector.exit(name);
                            lock.unlock();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, threads));
            }
        }
        start.countDown();
        CompletableFuture.allOf(contenders.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);

        assertTrue(failures.isEmpty(), "contenders failed: " + failures);
        assertEquals(0, detector.overlaps(), "times two holders were inside at once");
        assertEquals(2L * threadsPerClient * rounds, detector.holds(), "every hold counted");
        LockClient observer = newClient(Duration.ofSeconds(10));
        for (String name : names) {
            assertFalse(observer.getLock(name).isLocked(), name + " was released");
        }
    }

    @Test
    void aWaiterIsWokenByTheUnlockMessageOnTheSlotsOwnMaster() throws Exception {
        String name = namesOnEveryMaster(cluster, "latchkey-test:cluster:wake", 1).get(2);
        String channel = "latchkey:{" + name + "}:channel";
        DistributedLock held = newClient(LONG_LEASE).getLock(name);
        DistributedLock awaited = newClient(LONG_LEASE).getLock(name);
        long owner = 42;

        held.lockAsync(owner).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> waiter = awaited.lockAsync(7);
        RedisServer master = cluster.masterFor(name);
        if (sharded) {
            await().atMost(Duration.ofSeconds(5)).until(() -> shardSubscribers(master, channel) == 1);
        } else {
            await().atMost(Duration.ofSeconds(5)).until(() -> cluster.nodes().stream()
                    .mapToLong(node -> classicSubscribers(node, channel)).sum() == 1);
        }
        assertFalse(waiter.isDone(), "the lock is held");

        long released = System.nanoTime();
        held.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        waiter.get(5, TimeUnit.SECONDS);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        // The holder's lease was 30 s: only the unlock message can wake the waiter this soon.
        assertTrue(tookMillis < 3000, "the waiter took " + tookMillis + " ms to notice the unlock");
        awaited.unlockAsync(7).get(5, TimeUnit.SECONDS);
        if (sharded) {
            await().atMost(Duration.ofSeconds(5)).until(() -> shardSubscribers(master, channel) == 0);
        }
    }

    @Test
    void theWatchdogRenewsHoldsOnManySlotsEachInItsOwnSlot() throws Exception {
        // One renewal script over keys of several slots would fail with CROSSSLOT, and the holds
        // would run out after one lease.
        Duration lease = Duration.ofMillis(2500);
        LockClient holder = newClient(lease);
        DistributedLock observer = newClient(LONG_LEASE).getLock("unused");
        List<String> names = namesOnEveryMaster(cluster, "latchkey-test:cluster:renew", 4);
        long owner = 1;
        for (String name : names) {
            holder.getLock(name).lockAsync(owner).get(5, TimeUnit.SECONDS);
        }
        LockClient observerClient = clients.get(clients.size() - 1);
        // Without a renewal every hold would be gone one lease after it was taken.
        await().during(lease.multipliedBy(3).dividedBy(2)).atMost(lease.multipliedBy(3))
                .until(() -> names.stream().allMatch(name -> observerClient.getLock(name).isLocked()));
        for (String name : names) {
            holder.getLock(name).unlockAsync(owner).get(5, TimeUnit.SECONDS);
        }
        assertFalse(observer.isLocked());
        assertTrue(names.stream().noneMatch(name -> observerClient.getLock(name).isLocked()), "every hold was released");
    }

    @Test
    void aSlotMovedToAnotherMasterWhileItsLockIsHeldAndAwaited() throws Exception {
        String name = namesOnEveryMaster(cluster, "latchkey-test:cluster:moved", 1).get(0);
        String channel = "latchkey:{" + name + "}:channel";
        String slot = Integer.toString(cluster.slotOf(name));
        RedisServer source = cluster.masterFor(name);
        RedisServer target = cluster.masters().stream().filter(master -> master != source).findFirst().orElseThrow();
        DistributedLock held = newClient(LONG_LEASE).getLock(name);
        DistributedLock awaited = newClient(LONG_LEASE).getLock(name);

        held.lockAsync(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> waiter = awaited.lockAsync(2);
        if (sharded) {
            await().atMost(Duration.ofSeconds(5)).until(() -> shardSubscribers(source, channel) == 1);
        } else {
            await().atMost(Duration.ofSeconds(5)).until(() -> cluster.nodes().stream()
                    .mapToLong(node -> classicSubscribers(node, channel)).sum() == 1);
        }

        // Migrate the slot as redis-cli --cluster reshard does, and release the lock half-way:
        // its key is on the target already while the source still owns the slot (ASK).
        String sourceId = String.valueOf(source.command("CLUSTER", "MYID"));
        String targetId = String.valueOf(target.command("CLUSTER", "MYID"));
        target.command("CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId);
        source.command("CLUSTER", "SETSLOT", slot, "MIGRATING", targetId);
        // Every key of the slot moves: the lock's, the slot's fencing counter, and with local
        // hand-off (the default) the lock's waiting mark, which the waiting client's try set.
        List<String> keys = ((List<?>) source.command("CLUSTER", "GETKEYSINSLOT", slot, "100")).stream().map(Object::toString).toList();
        LockKeys lockKeys = LockKeys.of(name);
        assertEquals(Set.of(name, lockKeys.fenceCounter(), lockKeys.derived("waiting")), Set.copyOf(keys), "the slot's keys");
        List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()), "", "0", "5000", "KEYS"));
        migrate.addAll(keys);
        source.command(migrate.toArray(String[]::new));
        assertEquals(0L, source.command("CLUSTER", "COUNTKEYSINSLOT", slot), "the lock's keys left the source");
        assertEquals((long) keys.size(), target.command("CLUSTER", "COUNTKEYSINSLOT", slot), "the lock's keys are on the target");
        long released = System.nanoTime();
        // Redis answers TRYAGAIN to a multi-key script on a slot in mid-migration; the client
        // retries within its command timeout, by which time the migration is complete.
        CompletableFuture<Void> unlock = held.unlockAsync(1);
        for (RedisServer master : cluster.masters()) {
            master.command("CLUSTER", "SETSLOT", slot, "NODE", targetId);
        }
        unlock.get(5, TimeUnit.SECONDS);

        // Sharded: the unlock message went out on the target while the waiter listened on the
        // source; the source drops the channel with the slot, the client follows it to the target
        // and the waiter re-checks, long before the holder's 30 s lease would have woken it.
        // Classic: the message reached every node.
        waiter.get(10, TimeUnit.SECONDS);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertTrue(tookMillis < 8000, "the waiter took " + tookMillis + " ms");

        // MOVED: the holder's client still thinks the slot is on the source.
        assertFalse(held.tryLockAsync(Duration.ofMillis(300), LONG_LEASE, 1).get(10, TimeUnit.SECONDS),
                "the waiter holds the lock now");
        awaited.unlockAsync(2).get(5, TimeUnit.SECONDS);
        assertTrue(held.tryLockAsync(Duration.ZERO, LONG_LEASE, 1).get(5, TimeUnit.SECONDS));
        assertEquals(1L, target.command("EXISTS", name), "the lock lives on the slot's new master");
        held.unlockAsync(1).get(5, TimeUnit.SECONDS);
    }

    /** Timing-bound: a wrong password's connect, refused in time, a hundred times. */
    @Test
    @TimingBound
    void anAclUserWorksOnTheClusterAndAWrongPasswordFailsClearly() throws Exception {
        List<String> setUser = new ArrayList<>(List.of("ACL", "SETUSER", "cluster-locker"));
        setUser.addAll(AclTest.LOCK_USER_RULES);
        // What the cluster client adds: the topology (CLUSTER NODES, INFO; CLUSTER MYID for the
        // pub/sub connections) and sharded pub/sub.
        setUser.addAll(CLUSTER_USER_RULES);
        if (sharded) {
            setUser.addAll(SHARDED_USER_RULES);
        }
        for (RedisServer node : cluster.nodes()) {
            node.command(setUser.toArray(String[]::new));
        }
        String seed = "redis://cluster-locker:%s@" + cluster.nodes().get(0).host() + ":" + cluster.nodes().get(0).port();

        // Repeated: Lettuce's handshake closes the channel before it reports the refusal, and the
        // close sometimes wins (a LockConnectionException: "Connection closed prematurely",
        // "RedisHandshakeHandler not registered").
        for (int attempt = 0; attempt < WRONG_PASSWORD_ATTEMPTS; attempt++) {
            LockException refused = assertThrows(LockRefusedException.class, () -> LockClient.create(LockConfig.builder()
                    .clusterAddresses(String.format(seed, "wrong")).build()), "attempt " + attempt);
            assertTrue(refused.getMessage().contains("refused the credentials"), refused.getMessage());
        }

        String name = "locks:" + namesOnEveryMaster(cluster, "acl", 1).get(2);
        List<LockClient> users = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            LockClient user = LockClient.create(LockConfig.builder().clusterAddresses(String.format(seed, "s3cret"))
                    .commandTimeout(Duration.ofSeconds(1)).build());
            clients.add(user);
            users.add(user);
        }
        DistributedLock held = users.get(0).getLock(name);
        DistributedLock awaited = users.get(1).getLock(name);
        held.lockAsync(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> waiter = awaited.lockAsync(2);
        assertTrue(awaited.isLocked());
        held.unlockAsync(1).get(5, TimeUnit.SECONDS);
        waiter.get(5, TimeUnit.SECONDS);
        awaited.unlockAsync(2).get(5, TimeUnit.SECONDS);
        assertFalse(held.isLocked());
    }

    @Test
    void theFairLockGrantsInArrivalOrderOnTheCluster() throws Exception {
        LockClient client = newClient(LONG_LEASE);
        String name = namesOnEveryMaster(cluster, "latchkey-test:cluster:fair", 1).get(1);
        DistributedLock fair;
        try {
            fair = client.getFairLock(name);
        } catch (IllegalStateException missing) {
            assumeTrue(false, "lock-fair is not on the class path: " + missing.getMessage());
            return;
        }
        DistributedLock other = newClient(LONG_LEASE).getFairLock(name);
        RedisServer master = cluster.masterFor(name);
        String queue = "latchkey:{" + name + "}:queue";

        fair.lockAsync(1).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> first = other.lockAsync(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) master.command("LLEN", queue) == 1);
        CompletableFuture<Void> second = other.lockAsync(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) master.command("LLEN", queue) == 2);

        fair.unlockAsync(1).get(5, TimeUnit.SECONDS);
        first.get(5, TimeUnit.SECONDS);
        assertFalse(second.isDone(), "the second waiter comes after the first");
        other.unlockAsync(2).get(5, TimeUnit.SECONDS);
        second.get(5, TimeUnit.SECONDS);
        other.unlockAsync(3).get(5, TimeUnit.SECONDS);
        assertFalse(fair.isLocked());
        assertEquals(0L, master.command("EXISTS", queue), "no queue is left behind");
    }

    @Test
    void aChannelLeftWhileThePubSubConnectionWasDownIsUnsubscribedWhenItReconnects() throws Exception {
        String left = namesOnEveryMaster(cluster, "latchkey-test:cluster:outage", 1).get(0);
        String kept = sameSlotAs(left); // so that a sharded re-subscription carries both in one SSUBSCRIBE
        String leftChannel = "latchkey:{" + left + "}:channel";
        String keptChannel = "latchkey:{" + kept + "}:channel";
        RedisServer master = cluster.masterFor(left);
        // Sharded channels live on the slot's master; classic ones on whichever node Lettuce picked.
        List<RedisServer> carriers = sharded ? List.of(master) : cluster.nodes();
        LockClient holder = newClient(LONG_LEASE);
        holder.getLock(left).lockAsync(1).get(5, TimeUnit.SECONDS);
        holder.getLock(kept).lockAsync(1).get(5, TimeUnit.SECONDS);
        LockClient waiters = newClient(LONG_LEASE);
        CompletableFuture<Void> leaving = waiters.getLock(left).lockAsync(2);
        CompletableFuture<Void> staying = waiters.getLock(kept).lockAsync(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(leftChannel) == 1 && subscribers(keptChannel) == 1);

        // Connections opened before maxclients drops stay open; it refuses the client's reconnects.
        List<RedisClient> admins = carriers.stream().map(node -> RedisClient.create(node.uri())).toList();
        try {
            List<RedisCommands<String, String>> consoles = admins.stream()
                    .map(RedisClient::connect).map(StatefulRedisConnection::sync).toList();
            List<String> maxClients = consoles.stream().map(console -> console.configGet("maxclients").get("maxclients")).toList();
            long rejected = consoles.stream().mapToLong(ClusterLockTest::rejectedConnections).sum();
            consoles.forEach(console -> console.configSet("maxclients", "1"));
            try {
                consoles.forEach(console -> console.clientKill(KillArgs.Builder.typePubsub()));
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                        .until(() -> consoles.stream().mapToLong(ClusterLockTest::rejectedConnections).sum() > rejected);
                // A waiter leaves during the outage: its (S)UNSUBSCRIBE is rejected, and Lettuce
                // still counts the channel among those to subscribe again on reconnect.
                leaving.cancel(false);
            } finally {
                for (int i = 0; i < consoles.size(); i++) {
                    consoles.get(i).configSet("maxclients", maxClients.get(i));
                }
            }
        } finally {
            admins.forEach(admin -> admin.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        }

        // One (S)SUBSCRIBE carries both channels again, so both are back once the kept one is.
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20)).until(() -> subscribers(keptChannel) == 1);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> subscribers(leftChannel) == 0);
        assertFalse(staying.isDone(), "the kept lock is still held");
        staying.cancel(false);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> subscribers(keptChannel) == 0);
    }

    /** @return how many subscribers the channel has, sharded on its slot's master or classic on every node */
    private long subscribers(String channel) {
        if (sharded) {
            return shardSubscribers(cluster.masterFor(channelName(channel)), channel);
        }
        return cluster.nodes().stream().mapToLong(node -> classicSubscribers(node, channel)).sum();
    }

    /** @return the lock name inside {@code latchkey:{name}:channel}: its hash tag, which decides the slot */
    private static String channelName(String channel) {
        return channel.substring(channel.indexOf('{') + 1, channel.lastIndexOf('}'));
    }

    /** @return a fresh lock name in the same hash slot as {@code name} */
    private String sameSlotAs(String name) {
        int slot = cluster.slotOf(name);
        while (true) {
            String candidate = name + ":" + UUID.randomUUID();
            // One name in 16,384 fits: Lettuce's CRC16 sifts them here (asking Redis about each
            // took 20 s), and Redis confirms the one found.
            if (SlotHash.getSlot(candidate) == slot && cluster.slotOf(candidate) == slot) {
                return candidate;
            }
        }
    }

    private static long rejectedConnections(RedisCommands<String, String> console) {
        return console.info("stats").lines().filter(line -> line.startsWith("rejected_connections:"))
                .mapToLong(line -> Long.parseLong(line.substring("rejected_connections:".length()).strip()))
                .findFirst().orElseThrow();
    }

    /**
     * Names that Redis Cluster hashes whole although they hold braces (a lone or reversed '}', an
     * empty "{}"), and names whose hash tag is only part of them; plus one of each kind with
     * non-ASCII text, which Redis hashes as UTF-8.
     */
    static final List<String> NAMES_WITH_BRACES = List.of(
            "job}1", "order-{}x", "}", "{}", "{", "}{x}", "a{b}c", "{}{x}", "{{}}", "z\u00e4hler}\u00fc", "{\u00fc}\u00e4");

    @Test
    void namesWithBracesKeepEveryKeyInTheLocksSlot() {
        for (String name : NAMES_WITH_BRACES) {
            LockKeys keys = LockKeys.of(name);
            int slot = cluster.slotOf(name);
            for (String key : List.of(keys.channel(), keys.derived("queue"), keys.derived("timeouts"))) {
                assertEquals(slot, cluster.slotOf(key), () -> key + " is in the slot of the lock " + name);
            }
        }
    }

    @Test
    void plainLocksWithBracesInTheirNamesLockUnlockAndWakeTheirWaiters() throws Exception {
        handOverEachNameWithBraces("plain", LockClient::getLock);
    }

    @Test
    void fairLocksWithBracesInTheirNamesGrantInArrivalOrder() throws Exception {
        try {
            newClient(LONG_LEASE).getFairLock("probe");
        } catch (IllegalStateException missing) {
            assumeTrue(false, "lock-fair is not on the class path: " + missing.getMessage());
        }
        handOverEachNameWithBraces("fair", LockClient::getFairLock);
    }

    /**
     * For each name: one client holds the lock, two owners of another client wait, and each
     * unlock must wake a waiter by its message (the holders' leases are 30 s); the fair lock
     * must wake the first to arrive. With a derived key in another slot than the lock, the
     * scripts fail with CROSSSLOT.
     */
    private void handOverEachNameWithBraces(String kindName, BiFunction<LockClient, String, DistributedLock> kind)
            throws Exception {
        boolean fair = kindName.equals("fair");
        LockClient holderClient = newClient(LONG_LEASE);
        LockClient waiterClient = newClient(LONG_LEASE);
        for (String base : NAMES_WITH_BRACES) {
            // Each test its own names, so that one test's failure leaves no hold in another's way.
            String name = base + kindName;
            DistributedLock held = kind.apply(holderClient, name);
            DistributedLock awaited = kind.apply(waiterClient, name);
            RedisServer master = cluster.masterFor(name);
            LockKeys keys = LockKeys.of(name);

            held.lockAsync(1).get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> first = awaited.lockAsync(2);
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(master, keys.channel()) == 1);
            CompletableFuture<Void> second = awaited.lockAsync(3);

            long released = System.nanoTime();
            held.unlockAsync(1).get(5, TimeUnit.SECONDS);
            CompletableFuture.anyOf(first, second).get(5, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
            assertTrue(tookMillis < 3000, name + ": a waiter took " + tookMillis + " ms to notice the unlock");
            if (fair) {
                assertTrue(first.isDone() && !second.isDone(), name + ": the first to arrive holds the lock");
            }
            // The plain lock is not fair: the second may have come in before the first woke.
            boolean firstHolds = first.isDone();
            awaited.unlockAsync(firstHolds ? 2 : 3).get(5, TimeUnit.SECONDS);
            (firstHolds ? second : first).get(5, TimeUnit.SECONDS);
            awaited.unlockAsync(firstHolds ? 3 : 2).get(5, TimeUnit.SECONDS);

            assertFalse(held.isLocked(), name + " was released");
            assertEquals(0L, master.command("EXISTS", name, keys.derived("queue"), keys.derived("timeouts")),
                    name + ": nothing is left behind");
        }
    }

    private long subscribers(RedisServer master, String channel) {
        return sharded ? shardSubscribers(master, channel)
                : cluster.nodes().stream().mapToLong(node -> classicSubscribers(node, channel)).sum();
    }

    static long classicSubscribers(RedisServer node, String channel) {
        List<?> reply = (List<?>) node.command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    static long shardSubscribers(RedisServer node, String channel) {
        List<?> reply = (List<?>) node.command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }
}
