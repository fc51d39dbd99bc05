package io.latchkey.fair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fair lock's hand-off granted at the release (release.lua): the first in line enters on the
 * release's message, without a try of its own, if the message proves the secret of its last try; a grant whose message was lost is taken by the
 * waiter's next try; a waiter that gives up while its grant is on its way gives it back to the
 * next; a granted waiter that never takes its grant blocks the lock only as long as its place.
 * The holder and the releases are made by hand with the packaged scripts, so that each test
 * chooses when the grant happens and whether its message arrives.
 */
class FairLockGrantTest {

    private static final String HOLDER = "test-holder:1";
    private static final long HOLDER_LEASE = 60_000;
    private static final long WAITER = 7;

    private static RedisServer server;
    private static FairLockRedis raw;
    private static RedisCommands<String, String> redis;
    private static String acquireSha;
    private static String releaseSha;

    private final List<LockClient> clients = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        raw = new FairLockRedis(server.uri());
        redis = raw.commands();
        acquireSha = redis.scriptLoad(FairLockRedis.script("acquire.lua"));
        releaseSha = redis.scriptLoad(FairLockRedis.script("release.lua"));
    }

    @AfterAll
    static void stopRedis() {
        if (raw != null) {
            raw.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void holdTheLockByHand() {
        name = "latchkey-test:fair-grant:" + UUID.randomUUID();
        List<Object> held = redis.evalsha(acquireSha, ScriptOutputType.MULTI, keys(), Long.toString(HOLDER_LEASE), HOLDER,
                "300000", "publish", "holder-call", "");
        assertThat(held.get(0)).isEqualTo(1L);
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    @Test
    void theFirstInLineEntersOnTheReleasesMessageWhileRedisAnswersNobody() throws Exception {
        DistributedLock fair = client(Duration.ofMinutes(5)).getFairLock(name);
        redis.configResetstat();
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        awaitTriesStopped();
        String field = raw.queue(name).get(0);

        // The release and a pause of every client in one transaction: from then on Redis answers
        // no command until the pause ends, but the release's message is already on its way.
        redis.multi();
        releaseGranting();
        redis.clientPause(3_000);
        redis.exec();

        // A try would wait for the pause to end: the grant came with the message. (Counting the
        // scripts instead says less: the take that follows costs what a try did.)
        LockHold hold = waiter.get(2, TimeUnit.SECONDS);
        assertThat(hold.isValid()).isTrue();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(redis.hget(name, field)).as("taken once Redis answers again").isEqualTo("1");
            assertThat(redis.hget(name, field + ":token")).isEqualTo(Long.toString(hold.fencingToken()));
            assertThat(redis.pttl(name)).as("the watchdog lease, not the place of 5 min").isBetween(1L, 30_000L);
        });
        hold.close();
        assertThat(raw.keysOf(name)).isEmpty();
    }

    /**
     * A short critical section unlocks before the take of its grant is answered: the release goes
     * out behind the take, not a round trip later, and ends the hold by its token. Through a proxy
     * that holds every reply (and message) back for 3 s, the lock is free in Redis, and the next
     * in line granted, while the take's reply is still held; it was still held when the release
     * waited for that reply.
     */
    @Test
    void anUnlockBeforeTheTakeIsAnsweredGoesOutBehindTheTakeNotAfterItsAnswer() throws Exception {
        FaultProxy proxy = FaultProxy.to(server);
        try {
            // Commands wait out the held replies: the take must not time out.
            LockClient client = LockClient.create(LockConfig.builder().address(proxy.uri()).fairLockWaitTimeout(Duration.ofMinutes(5))
                    .commandTimeout(Duration.ofSeconds(10)).build());
            clients.add(client);
            DistributedLock fair = client.getFairLock(name);
            redis.configResetstat();
            CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
            awaitTriesStopped();
            List<Object> queued = redis.evalsha(acquireSha, ScriptOutputType.MULTI, keys(), Long.toString(HOLDER_LEASE),
                    "test-next:1", "300000", "publish", "next-call", "");
            assertThat(queued.get(0)).as("another waiter in line behind the client's").isEqualTo(0L);

            proxy.delay(Duration.ofSeconds(3));
            releaseGranting();
            LockHold hold = waiter.get(10, TimeUnit.SECONDS);
            long enteredNanos = System.nanoTime();
            CompletableFuture<Void> unlocked = fair.unlockAsync(WAITER);

            await().atMost(Duration.ofMillis(2_500)).untilAsserted(() ->
                    assertThat(redis.hget(name, "test-next:1")).as("the next in line granted").isEqualTo("0"));
            assertThat(System.nanoTime() - enteredNanos).as("before the take's reply could come back")
                    .isLessThan(TimeUnit.SECONDS.toNanos(3));
            proxy.heal();
            unlocked.get(10, TimeUnit.SECONDS);
            assertThat(hold.isValid()).isFalse();
            assertThat(hold.leaseLost()).as("released, not lost").isNotDone();
        } finally {
            proxy.close();
        }
    }

    /**
     * A grant that ends no later than the owner's lease would (a place no longer than the watchdog
     * lease) is entered on its message and not taken at once: an unlock before the take is due
     * ends it by its token, one script call where a take and a release made two.
     */
    @Test
    void anUnlockBeforeTheTakeIsDueEndsTheGrantWithOneScriptCallForBoth() throws Exception {
        DistributedLock fair = client(Duration.ofSeconds(20)).getFairLock(name);
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        awaitTriesStopped();
        redis.configResetstat();

        releaseGranting();
        LockHold hold = waiter.get(10, TimeUnit.SECONDS);
        fair.unlockAsync(WAITER).get(10, TimeUnit.SECONDS);

        assertThat(scriptCalls()).as("the holder's release and the waiter's end").isEqualTo(2);
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.leaseLost()).isNotDone();
        assertThat(raw.keysOf(name)).isEmpty();
    }

    /** A fixed lease counts from the acquisition: its take goes at once, not when a watchdog lease's would be due. */
    @Test
    void aFixedLeaseIsTakenAtOnceEvenWhenTheGrantEndsBeforeIt() throws Exception {
        DistributedLock fair = client(Duration.ofSeconds(20)).getFairLock(name);
        CompletableFuture<Optional<LockHold>> waiter = fair.tryAcquireAsync(Duration.ofMinutes(1), Duration.ofSeconds(25), WAITER);
        awaitTriesStopped();
        String field = raw.queue(name).get(0);

        releaseGranting();
        LockHold hold = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        long enteredNanos = System.nanoTime();

        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(redis.hget(name, field)).isEqualTo("1"));
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - enteredNanos);
        assertThat(redis.pttl(name)).as("25 s from about the acquisition").isLessThanOrEqualTo(25_000L - elapsedMillis + 100);
        hold.close();
    }

    /** A query of the owner's hold goes after its take: the take that waited is sent first. */
    @Test
    void aQueryRightAfterEnteringFindsTheHoldTaken() throws Exception {
        DistributedLock fair = client(Duration.ofSeconds(20)).getFairLock(name);
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        awaitTriesStopped();
        String field = raw.queue(name).get(0);

        releaseGranting();
        LockHold hold = waiter.get(10, TimeUnit.SECONDS);

        assertThat(fair.isHeldBy(WAITER)).isTrue();
        assertThat(redis.hget(name, field)).isEqualTo("1");
        assertThat(redis.pttl(name)).as("the watchdog lease").isGreaterThan(20_000L);
        hold.close();
        assertThat(raw.keysOf(name)).isEmpty();
    }

    /** Held past the take's due time (halfway to the grant's bound, less a command timeout), the hold is taken with the owner's lease. */
    @Test
    void aHoldKeptPastItsTakesDueTimeIsTakenWithTheOwnersLease() throws Exception {
        LockClient client = LockClient.create(LockConfig.builder().address(server.uri()).fairLockWaitTimeout(Duration.ofSeconds(4))
                .commandTimeout(Duration.ofMillis(500)).build());
        clients.add(client);
        DistributedLock fair = client.getFairLock(name);
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        awaitTriesStopped();
        String field = raw.queue(name).get(0);

        releaseGranting();
        LockHold hold = waiter.get(10, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(4)).untilAsserted(() -> {
            assertThat(redis.hget(name, field)).isEqualTo("1");
            assertThat(redis.pttl(name)).as("the watchdog lease, not the place of 4 s").isGreaterThan(4_000L);
        });
        assertThat(hold.isValid()).isTrue();
        hold.close();
        assertThat(raw.keysOf(name)).isEmpty();
    }

    @Test
    void aFixedLeaseEnteredOnTheMessageRunsOutWithThatLeaseNotWithThePlaceInLine() throws Exception {
        DistributedLock fair = client(Duration.ofMinutes(5)).getFairLock(name);
        redis.configResetstat();
        CompletableFuture<Optional<LockHold>> waiter = fair.tryAcquireAsync(Duration.ofMinutes(1), Duration.ofMillis(1_500), WAITER);
        awaitTriesStopped();

        releaseGranting();
        LockHold hold = waiter.get(10, TimeUnit.SECONDS).orElseThrow();

        // Entered on the grant's bound (the place, 5 min); the take set the lease of 1.5 s, and the
        // client counts on that from then on: the loss is told as the lease runs out.
        hold.leaseLost().get(10, TimeUnit.SECONDS);
        assertThat(hold.isValid()).isFalse();
        assertThat(redis.exists(name)).isZero();
    }

    @Test
    void aGrantWhoseMessageWasLostIsTakenByTheWaitersNextTry() throws Exception {
        redis.pexpire(name, 3_000); // the first in line tries again within the holder's lease
        DistributedLock fair = client(Duration.ofMinutes(5)).getFairLock(name);
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        await().atMost(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 1);
        String field = raw.queue(name).get(0);

        releaseTellingNobody();
        String granted = redis.hget(name, field + ":token");
        assertThat(redis.hget(name, field)).as("granted, not taken").isEqualTo("0");

        LockHold hold = waiter.get(10, TimeUnit.SECONDS);
        assertThat(hold.fencingToken()).isEqualTo(Long.parseLong(granted));
        assertThat(redis.hget(name, field)).as("one hold, not a re-entry").isEqualTo("1");
        hold.close();
        assertThat(raw.keysOf(name)).isEmpty();
    }

    @Test
    void aWaiterThatGivesUpWhileItsGrantIsOnItsWayGivesItBackToTheNextInLine() throws Exception {
        DistributedLock first = client(Duration.ofMinutes(5)).getFairLock(name);
        DistributedLock second = client(Duration.ofMinutes(5)).getFairLock(name);
        CompletableFuture<Optional<LockHold>> giving = first.tryAcquireAsync(Duration.ofMinutes(1), Duration.ofSeconds(30), WAITER);
        await().atMost(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 1);
        String firstField = raw.queue(name).get(0);
        CompletableFuture<LockHold> next = second.acquireAsync(WAITER + 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 2);

        releaseTellingNobody();
        assertThat(redis.hget(name, firstField)).as("granted to the first, not taken").isEqualTo("0");
        giving.cancel(true);

        // Without the give-back the second would wait for the first's place, five minutes.
        LockHold hold = next.get(10, TimeUnit.SECONDS);
        assertThat(redis.hget(name, firstField)).isNull();
        assertThat(first.isHeldBy(WAITER)).isFalse();
        hold.close();
        assertThat(raw.keysOf(name)).isEmpty();
    }

    @Test
    void aGrantNeverTakenHoldsTheLockNoLongerThanTheDeadWaitersPlace() throws Exception {
        String dead = "dead-client:1";
        long place = 1_500;
        redis.evalsha(acquireSha, ScriptOutputType.MULTI, keys(), "30000", dead, Long.toString(place), "publish", "dead-call", "");
        DistributedLock fair = client(Duration.ofMinutes(5)).getFairLock(name);
        CompletableFuture<LockHold> next = fair.acquireAsync(WAITER);
        await().atMost(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 2);
        long deadline = raw.timeouts(name).get(dead);

        releaseGranting();
        assertThat(redis.hget(name, dead)).as("granted to the dead waiter, first in line").isEqualTo("0");

        LockHold hold = next.get(10, TimeUnit.SECONDS);
        long grantedAt = raw.redisNowMillis();
        assertThat(grantedAt).as("not before the dead waiter's place ran out").isGreaterThanOrEqualTo(deadline);
        assertThat(grantedAt - deadline).as("and soon after: the next waits no longer than the first's place").isLessThan(1_500);
        hold.close();
    }

    @Test
    void aGrantMessageProvingTheSecretOfAnEarlierTryIsNotEnteredOn() throws Exception {
        DistributedLock fair = client(Duration.ofMinutes(5)).getFairLock(name);
        redis.configResetstat();
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        awaitTriesStopped();
        String field = raw.queue(name).get(0);
        String earlier = redis.hget(FairLockRedis.secretsKey(name), field);
        redis.publish(FairLockRedis.channelOf(name), field); // a wake-up: the waiter tries, with a new secret
        await().atMost(Duration.ofSeconds(10)).until(() -> !earlier.equals(redis.hget(FairLockRedis.secretsKey(name), field)));
        long tries = awaitTriesStopped();

        // As a grant's message for the earlier try (a real one sent again, or one that came late):
        // the secret it proves is not that of the waiter's last try.
        String token = Long.toString(Long.parseLong(redis.get(LockKeys.of(name).fenceCounter())) + 1);
        redis.publish(FairLockRedis.channelOf(name), field + " " + token + " " + FairLockRedis.sha1(token + ":" + earlier));

        await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() > tries);
        assertThat(waiter).as("it tried instead, and is still in line").isNotDone();
        assertThat(raw.queue(name)).containsExactly(field);
        releaseGranting();
        waiter.get(10, TimeUnit.SECONDS).close();
    }

    @Test
    void aGrantMessageWhoseProofIsForAnotherTokenIsNotEnteredOn() throws Exception {
        DistributedLock fair = client(Duration.ofMinutes(5)).getFairLock(name);
        redis.configResetstat();
        CompletableFuture<LockHold> waiter = fair.acquireAsync(WAITER);
        long tries = awaitTriesStopped();
        String field = raw.queue(name).get(0);
        String secret = redis.hget(FairLockRedis.secretsKey(name), field);

        // As a real grant's message seen on the channel and sent again with a greater token: the
        // proof binds the token, so the waiter does not enter holding a token nobody granted.
        long token = Long.parseLong(redis.get(LockKeys.of(name).fenceCounter())) + 1;
        redis.publish(FairLockRedis.channelOf(name), field + " " + (token + 1_000) + " " + FairLockRedis.sha1(token + ":" + secret));

        await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() > tries);
        assertThat(waiter).as("it tried instead, and is still in line").isNotDone();
        assertThat(raw.queue(name)).containsExactly(field);
        releaseGranting();
        LockHold hold = waiter.get(10, TimeUnit.SECONDS);
        assertThat(redis.hget(name, field + ":token")).isEqualTo(Long.toString(hold.fencingToken()));
        hold.close();
    }

    /**
     * Waits until the waiter that is starting has made its tries: the first queued it, the second
     * (after subscribing) found it still queued, and a third may follow the subscription's
     * confirmation.
     *
     * @return the scripts Redis ran since the statistics were reset
     */
    private static long awaitTriesStopped() {
        long[] tries = {-1};
        await().atMost(Duration.ofSeconds(15)).during(Duration.ofSeconds(1)).until(() -> {
            long now = scriptCalls();
            boolean same = now == tries[0];
            tries[0] = now;
            return now >= 2 && same;
        });
        return tries[0];
    }

    /** The holder's last release, which grants the first in line and tells it on the lock's channel. */
    private void releaseGranting() {
        redis.evalsha(releaseSha, ScriptOutputType.INTEGER, releaseKeys(FairLockRedis.channelOf(name)), HOLDER, "publish",
                "holder-release", "release");
    }

    /** The holder's last release, its message sent where no waiter listens: as if it were lost. */
    private void releaseTellingNobody() {
        Long left = redis.evalsha(releaseSha, ScriptOutputType.INTEGER, releaseKeys("latchkey:{" + name + "}:nowhere"), HOLDER,
                "publish", "holder-release", "release");
        assertThat(left).isZero();
    }

    private LockClient client(Duration place) {
        LockClient client = LockClient.create(LockConfig.builder().address(server.uri()).fairLockWaitTimeout(place).build());
        clients.add(client);
        return client;
    }

    private String[] keys() {
        return new String[] {name, FairLockRedis.queueKey(name), FairLockRedis.timeoutsKey(name), FairLockRedis.channelOf(name),
            LockKeys.of(name).fenceCounter(), FairLockRedis.secretsKey(name)};
    }

    private String[] releaseKeys(String channel) {
        return new String[] {name, FairLockRedis.queueKey(name), channel, FairLockRedis.timeoutsKey(name),
            LockKeys.of(name).fenceCounter(), FairLockRedis.secretsKey(name)};
    }

    /** @return how many scripts Redis ran since the statistics were reset */
    private static long scriptCalls() {
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                String stats = line.substring(line.indexOf(':') + 1);
                return Long.parseLong(stats.substring("calls=".length(), stats.indexOf(',')));
            }
        }
        return 0;
    }
}
