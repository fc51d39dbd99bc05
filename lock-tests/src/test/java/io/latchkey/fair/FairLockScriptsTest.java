package io.latchkey.fair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each script of the fair lock called directly against a real Redis, with the queue arranged by
 * hand: what it grants, whom it queues, evicts and wakes, what it answers, and what it leaves.
 */
class FairLockScriptsTest {

    private static final String LOCK = "fair-scripts-lock";
    private static final String QUEUE = FairLockRedis.queueKey(LOCK);
    private static final String TIMEOUTS = FairLockRedis.timeoutsKey(LOCK);
    private static final String CHANNEL = FairLockRedis.channelOf(LOCK);
    private static final String SECRETS = FairLockRedis.secretsKey(LOCK);
    /** The fencing counter of {@link #LOCK}'s hash slot. */
    private static final String COUNTER = LockKeys.of(LOCK).fenceCounter();
    private static final String HOLDER = "client-h:1";
    private static final String A = "client-a:1";
    private static final String B = "client-b:2";
    private static final String C = "client-c:3";
    private static final long LEASE = 10_000;
    private static final long PLACE = 60_000;

    private static RedisServer server;
    private static FairLockRedis raw;
    private static RedisCommands<String, String> redis;

    private StatefulRedisPubSubConnection<String, String> pubSub;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        raw = new FairLockRedis(server.uri());
        redis = raw.commands();
    }

    @AfterAll
    static void stopRedis() {
        raw.close();
        server.close();
    }

    @BeforeEach
    void emptyRedis() {
        redis.flushall();
        lastSecrets.clear();
    }

    @AfterEach
    void stopListening() {
        if (pubSub != null) {
            pubSub.close();
        }
    }

    // ---- acquire.lua -------------------------------------------------------------------------

    @Test
    void aLeaseRedisCannotTakeIsRefusedBeforeAnythingIsWritten() {
        // Before: 10^17 ms failed PEXPIRE after the hold was written: a fair lock with no expiry.
        for (long lease : new long[] {0, -5, 31_536_000_001L, 100_000_000_000_000_000L, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> acquire("client-a:1", lease, PLACE)).hasMessageContaining("the lease must be 1 to 31536000000 ms");
            assertThat(redis.exists(LOCK, QUEUE, TIMEOUTS, COUNTER)).as("lease %d", lease).isZero();
        }
    }

    @Test
    void acquireOnAFreeLockWithAnEmptyQueueTakesOneHoldAndQueuesNothing() {
        assertThat(acquire(A)).isNull();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "1"));
        assertThat(redis.pttl(LOCK)).isBetween(LEASE - 1_000, LEASE);
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void acquireByTheHolderAgainCountsTheReentryAndResetsTheLease() {
        acquire(A, 1_000, PLACE);

        assertThat(acquire(A)).isNull();

        assertThat(redis.hget(LOCK, A)).isEqualTo("2");
        assertThat(redis.pttl(LOCK)).isGreaterThan(LEASE - 1_000);
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void acquireOfAHeldLockQueuesTheCallerWithADeadlineFromRedisTime() {
        acquire(HOLDER);
        long before = raw.redisNowMillis();

        Long wait = acquire(A);

        long after = raw.redisNowMillis();
        assertThat(holds()).containsOnlyKeys(HOLDER);
        assertThat(raw.queue(LOCK)).containsExactly(A);
        assertThat(raw.timeouts(LOCK).get(A)).isBetween(before + PLACE, after + PLACE);
        assertThat(redis.pttl(QUEUE)).isBetween(PLACE - 1_000, PLACE);
        assertThat(redis.pttl(TIMEOUTS)).isBetween(PLACE - 1_000, PLACE);
        // First in line: the holder's lease bounds the wait (it is shorter than half the place).
        assertThat(wait).isBetween(LEASE - 1_000, LEASE);
    }

    @Test
    void waitersQueueInArrivalOrderAndARetryKeepsThePlaceAndPushesTheDeadlineBack() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        long bDeadline = raw.timeouts(LOCK).get(B);
        redis.zadd(TIMEOUTS, bDeadline - 5_000, B);

        acquire(B);

        assertThat(raw.queue(LOCK)).containsExactly(A, B, C);
        assertThat(raw.timeouts(LOCK).get(B)).isGreaterThanOrEqualTo(bDeadline);
    }

    @Test
    void waitBoundIsHalfThePlaceBehindTheFirstAndTheHoldersLeaseForTheFirst() {
        acquire(HOLDER, 5_000, PLACE);
        acquire(A, LEASE, 1_200_000);
        acquire(B);

        assertThat(acquire(C, LEASE, 600_000)).as("third in line: half its place, while the first's lasts longer")
                .isEqualTo(300_000L);
        assertThat(acquire(A, LEASE, 4_000)).as("first in line: half its place, shorter than the lease")
                .isEqualTo(2_000L);
        assertThat(acquire(A, LEASE, 60_000)).as("first in line: the holder's lease")
                .isBetween(4_000L, 5_000L);
    }

    @Test
    void secondInLineWaitsNoLongerThanTheFirstOnesPlaceLasts() {
        acquire(HOLDER);
        acquire(A);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() + 300, A);

        Long wait = acquire(B);

        assertThat(wait).isBetween(1L, 300L);
    }

    @Test
    void everyoneBehindTheFirstWaitsNoLongerThanTheFirstOnesPlaceLasts() {
        // If the first and the second are dead (say, two threads of one killed process), only a
        // waiter further back can evict them: it must come at the first one's deadline, not up to
        // half its own place later (issue 28: a free lock idle for 6 s with a 4 s place).
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() + 300, A);

        assertThat(acquire(C)).as("third in line").isBetween(1L, 300L);
    }

    @Test
    void aWaiterBehindDeadOnesEvictsThoseWhosePlacesRanOutAndWaitsForTheNextOnesDeadline() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, A);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() + 300, B);
        redis.del(LOCK);

        assertThat(acquire(C)).as("B's place lasts 300 ms more").isBetween(1L, 300L);
        assertThat(raw.queue(LOCK)).containsExactly(B, C);

        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, B);
        assertThat(acquire(C)).as("both places ran out: C takes the free lock").isNull();
        assertThat(holds()).containsOnlyKeys(C);
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void aFreeLockGoesToTheFirstInLineOnlyAndLeavesNoKeysWhenTheQueueEmpties() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.del(LOCK);

        assertThat(acquire(C)).as("a newcomer queues behind the live waiters").isNotNull();
        assertThat(acquire(B)).as("second in line").isNotNull();
        assertThat(acquire(A)).as("first in line").isNull();
        assertThat(raw.queue(LOCK)).containsExactly(B, C);
        assertThat(raw.timeouts(LOCK)).containsOnlyKeys(B, C);

        redis.del(LOCK);
        assertThat(acquire(B)).isNull();
        redis.del(LOCK);
        assertThat(acquire(C)).isNull();
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
        assertThat(holds()).containsOnlyKeys(C);
    }

    @Test
    void theFirstInLineTakingTheLockWakesTheNextOneToWatchTheNewLease() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.del(LOCK);

        assertThat(acquire(A, 300, PLACE)).isNull();

        assertThat(raw.queue(LOCK)).containsExactly(B, C);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(acquire(B)).as("B, first now, waits no longer than A's lease").isBetween(1L, 300L);
    }

    @Test
    void anExpiredFirstWaiterIsEvictedAndTheNextOneGetsTheFreeLock() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, A);
        redis.del(LOCK);

        assertThat(acquire(B)).isNull();

        assertThat(holds()).containsOnlyKeys(B);
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void evictionExposingANewFirstWaiterOfAFreeLockWakesThatWaiterOnly() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, A);
        redis.del(LOCK);

        assertThat(acquire(C)).isNotNull();

        assertThat(raw.queue(LOCK)).containsExactly(B, C);
        assertThat(raw.timeouts(LOCK)).containsOnlyKeys(B, C);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void evictionWhileTheLockIsHeldWakesTheNewFirstInLineToWatchTheLease() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, A);

        assertThat(acquire(C)).isNotNull();

        assertThat(raw.queue(LOCK)).containsExactly(B, C);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void anExpiredWaiterBehindTheFirstIsNotEvictedAndKeepsItsPlaceWhenItComesBack() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, B);

        acquire(C);
        assertThat(raw.queue(LOCK)).containsExactly(A, B, C);
        acquire(B);
        assertThat(raw.queue(LOCK)).containsExactly(A, B, C);
        assertThat(raw.timeouts(LOCK).get(B)).isGreaterThan(raw.redisNowMillis());
    }

    @Test
    void aWaiterWithoutADeadlineCountsAsExpiredInsteadOfFailingTheScript() {
        acquire(HOLDER);
        redis.rpush(QUEUE, "ghost:1", "ghost:2");
        acquire(A);
        assertThat(raw.queue(LOCK)).containsExactly(A);
        redis.rpush(QUEUE, "ghost:3");
        redis.del(LOCK);

        assertThat(acquire(A)).isNull();

        assertThat(raw.queue(LOCK)).as("evicted once it is first in line").containsExactly("ghost:3");
        assertThat(redis.pttl(QUEUE)).as("and gone at the latest deadline anyway").isPositive();
        redis.del(LOCK);
        assertThat(acquire(B)).isNull();
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void aQueuedWaiterWhoseDeadlineIsMissingQueuesAgainAndIsNotLeftBehind() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.zrem(TIMEOUTS, A);

        assertThat(acquire(A)).isNotNull();
        assertThat(raw.queue(LOCK)).containsExactly(A, B, A);
        redis.del(LOCK);
        assertThat(acquire(A)).as("first in line by its first entry").isNull();

        redis.del(LOCK);
        assertThat(acquire(B)).isNull();
        assertThat(raw.queue(LOCK)).containsExactly(A);

        redis.del(LOCK);
        assertThat(acquire(C)).as("the stale entry has no deadline: evicted, not waited for").isNull();
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void anEmptyQueueKeyOrStaleTimeoutsDoNotStopAGrant() {
        redis.zadd(TIMEOUTS, raw.redisNowMillis() + PLACE, "stale:1");

        assertThat(acquire(A)).isNull();
        assertThat(release(A)).isZero();
        acquire(HOLDER);
        assertThat(acquire(B)).isNotNull();
        assertThat(raw.queue(LOCK)).containsExactly(B);
        redis.del(LOCK);
        assertThat(acquire(B)).isNull();
        assertThat(raw.queue(LOCK)).isEmpty();
    }

    @Test
    void oneCallEvictsAtMostAHundredWaitersAndAsksForAQuickRetry() {
        acquire(HOLDER);
        String[] dead = new String[150];
        for (int i = 0; i < dead.length; i++) {
            dead[i] = "dead:" + i;
        }
        redis.rpush(QUEUE, dead);
        redis.del(LOCK);

        assertThat(acquire(A)).as("100 evicted, 50 dead ones still ahead").isEqualTo(1L);
        assertThat(redis.llen(QUEUE)).isEqualTo(51);
        assertThat(acquire(A)).isNull();
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void queueKeysExpireAtTheLatestDeadlineSoNothingOutlivesDeadWaiters() {
        acquire(HOLDER);
        acquire(A, LEASE, 2_000);
        acquire(B, LEASE, 500);

        assertThat(redis.pttl(QUEUE)).isBetween(1_000L, 2_000L);
        assertThat(redis.pttl(TIMEOUTS)).isBetween(1_000L, 2_000L);
    }

    // ---- acquire.lua: fencing tokens ---------------------------------------------------------

    @Test
    void aNewFairHoldTakesRedisClockInMicrosecondsWhenTheCounterIsBehindIt() {
        redis.set(COUNTER, "6");
        long before = serverMicros();

        List<Long> granted = acquireHolding(A, "");

        long token = granted.get(2);
        assertThat(granted).containsExactly(1L, 1L, token);
        assertThat(token).as("Redis TIME in µs during the call").isBetween(before, serverMicros());
        assertThat(tokenOf(A)).isEqualTo(Long.toString(token));
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
    }

    @Test
    void aNewFairHoldTakesTheCounterPlusOneWhenTheCounterIsAheadOfTheClock() {
        long ahead = serverMicros() + TimeUnit.HOURS.toMicros(1);
        redis.set(COUNTER, Long.toString(ahead));

        assertThat(acquireHolding(A, "")).containsExactly(1L, 1L, ahead + 1);

        assertThat(tokenOf(A)).isEqualTo(Long.toString(ahead + 1));
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(ahead + 1));
    }

    @Test
    void aFairHoldsRoundTokenIsWrittenExactlyAndACounterWithoutRoomIsRefusedBeforeAnythingIsWritten() {
        redis.set(COUNTER, Long.toString(4_000_000_000_000_000L - 1));
        assertThat(acquireHolding(A, "")).containsExactly(1L, 1L, 4_000_000_000_000_000L);
        assertThat(tokenOf(A)).isEqualTo("4000000000000000");
        assertThat(redis.get(COUNTER)).isEqualTo("4000000000000000");

        redis.flushall();
        redis.set(COUNTER, Long.toString((1L << 53) - 1));
        assertThatThrownBy(() -> acquireHolding(A, "")).hasMessageContaining("leaves room for 1 more below 2^53");
        assertThat(redis.exists(LOCK)).isZero();

        // Also when a dead waiter heads the queue: it stays, for the evictions write (review).
        redis.rpush(QUEUE, "client-dead:9");
        redis.zadd(TIMEOUTS, 1, "client-dead:9");
        assertThatThrownBy(() -> acquireHolding(A, "")).hasMessageContaining("leaves room for 1 more below 2^53");
        assertThat(redis.lrange(QUEUE, 0, -1)).containsExactly("client-dead:9");
        assertThat(redis.exists(LOCK)).isZero();
    }

    @Test
    void aFairReentryWithoutATokenOrWithTheHoldsTokenKeepsTheToken() {
        long token = acquireHolding(A, "").get(2);

        assertThat(acquireHolding(A, "")).containsExactly(1L, 2L, token);
        assertThat(acquireHolding(A, Long.toString(token))).containsExactly(1L, 3L, token);

        assertThat(tokenOf(A)).isEqualTo(Long.toString(token));
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
    }

    @Test
    void aFairReentryWithAStaleTokenAnswersMinusOneAndNeitherTakesNorQueues() {
        long before = acquireHolding(A, "").get(2);
        redis.del(LOCK);
        long gone = acquireHolding(A, "").get(2);
        acquire(B);
        Map<String, String> hash = redis.hgetall(LOCK);
        Map<String, Long> timeouts = raw.timeouts(LOCK);

        assertThat(acquireHolding(A, Long.toString(before))).as("the hold before").containsExactly(-1L, 0L);

        assertThat(redis.hgetall(LOCK)).isEqualTo(hash);
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(raw.timeouts(LOCK)).isEqualTo(timeouts);
        redis.del(LOCK);
        assertThat(acquireHolding(A, Long.toString(gone))).as("a hold that is gone, of a free lock").containsExactly(-1L, 0L);
        assertThat(redis.exists(LOCK)).isZero();
        assertThat(raw.queue(LOCK)).as("and not put in line").containsExactly(B);
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(gone));
    }

    @Test
    void theFirstInLineIsGrantedANewHoldWithAGreaterToken() {
        List<Long> holder = acquireHolding(HOLDER, "");
        acquire(A);
        acquire(B);
        release(HOLDER);

        List<Long> first = acquireHolding(A, "");

        assertThat(first).startsWith(1L, 1L);
        assertThat(first.get(2)).isGreaterThan(holder.get(2));
        assertThat(tokenOf(A)).isEqualTo(first.get(2).toString());
        assertThat(raw.queue(LOCK)).containsExactly(B);
    }

    @Test
    void aFairHoldWithoutATokenFieldGetsOneAtItsNextReentry() {
        redis.hset(LOCK, Map.of(A, "1", A + ":call", "call-of-0.1"));
        redis.pexpire(LOCK, LEASE);

        List<Long> granted = acquireHolding(A, "");

        assertThat(granted).startsWith(1L, 2L).hasSize(3);
        assertThat(tokenOf(A)).isEqualTo(granted.get(2).toString());
        assertThat(redis.get(COUNTER)).isEqualTo(granted.get(2).toString());
    }

    /** See lock-core's LockScriptsTest: a refused command must come before any write to the lock hash. */
    @Test
    void aUserWhoMayNotIncrementTheCounterIsRefusedBeforeTheLockHashChanges() {
        server.command("ACL", "SETUSER", "no-incr", "on", ">pw", "~*", "&*", "+@all", "-incrby");
        RedisClient limitedClient = RedisClient.create("redis://no-incr:pw@" + server.host() + ":" + server.port());
        try (StatefulRedisConnection<String, String> limited = limitedClient.connect()) {
            assertThatThrownBy(() -> limited.sync().eval(FairLockRedis.script("acquire.lua"),
                    ScriptOutputType.MULTI, new String[] {LOCK, QUEUE, TIMEOUTS, CHANNEL, COUNTER, SECRETS},
                    Long.toString(LEASE), A, Long.toString(PLACE), "publish", "refused-call", ""))
                    .hasMessageContaining("can't run this command");

            assertThat(raw.keysOf(LOCK)).as("no lock hash left behind").isEmpty();
            assertThat(redis.exists(COUNTER)).isZero();
        } finally {
            limitedClient.shutdown();
            server.command("ACL", "DELUSER", "no-incr");
        }
    }

    // ---- release.lua -------------------------------------------------------------------------

    @Test
    void releaseOfTheLastHoldGrantsTheFirstInLineUntilItsDeadlineAndTellsItTheToken() throws Exception {
        BlockingQueue<String> messages = listen();
        List<Long> holder = acquireHolding(HOLDER, "");
        acquire(A);
        acquire(B);
        long deadline = raw.timeouts(LOCK).get(A);

        assertThat(release(HOLDER)).isZero();

        long now = raw.redisNowMillis();
        assertThat(holds()).as("granted, not taken: count 0").containsExactlyEntriesOf(Map.of(A, "0"));
        String token = tokenOf(A);
        assertThat(Long.parseLong(token)).isGreaterThan(holder.get(2));
        assertThat(redis.get(COUNTER)).isEqualTo(token);
        assertThat(redis.pttl(LOCK)).as("the grant lasts as long as A's place in line").isBetween(deadline - now - 1_000, deadline - now);
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(raw.timeouts(LOCK)).containsOnlyKeys(B);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(A));
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("B is not woken: it waits no longer than A's deadline").isNull();
    }

    @Test
    void releaseEvictsTheFirstInLineWhosePlaceRanOutAndGrantsTheNextLiveOne() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, A);
        redis.zrem(TIMEOUTS, B);

        assertThat(release(HOLDER)).isZero();

        assertThat(holds()).as("A's place ran out, B has none").containsExactlyEntriesOf(Map.of(C, "0"));
        assertThat(raw.keysOf(LOCK)).as("the line is empty: its keys are gone").containsExactly(LOCK);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(C));
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void releaseWithOnlyDeadWaitersInLineDeletesTheLockAndEveryKey() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, A);
        redis.zadd(TIMEOUTS, raw.redisNowMillis() - 1, B);

        assertThat(release(HOLDER)).isZero();

        assertThat(raw.keysOf(LOCK)).isEmpty();
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void releaseBehindMoreThanAHundredDeadWaitersWakesTheFirstInsteadOfGranting() throws Exception {
        acquire(HOLDER);
        acquire(A);
        long past = raw.redisNowMillis() - 1;
        for (int i = 0; i < 101; i++) {
            redis.lpush(QUEUE, "dead:" + i);
            redis.zadd(TIMEOUTS, past, "dead:" + i);
        }
        BlockingQueue<String> messages = listen();

        assertThat(release(HOLDER)).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(raw.queue(LOCK)).containsExactly("dead:0", A);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("dead:0");
        assertThat(acquire(A)).as("A's try evicts the last dead one and takes the lock").isNull();
    }

    @Test
    void aQueuedTryLeavesItsSecretWithItsPlaceAndTheNextTryReplacesIt() {
        acquire(HOLDER);

        assertThat(acquireRaw(A, LEASE, PLACE, "first", "", "first-secret")).element(2).isEqualTo("first-secret");
        assertThat(redis.hgetall(SECRETS)).containsExactlyEntriesOf(Map.of(A, "first-secret"));
        assertThat(acquireRaw(A, LEASE, PLACE, "second", "", "second-secret")).element(2).isEqualTo("second-secret");

        assertThat(redis.hgetall(SECRETS)).containsExactlyEntriesOf(Map.of(A, "second-secret"));
        assertThat(redis.pttl(SECRETS)).as("lasts as the line's keys do").isBetween(PLACE - 5_000, PLACE);
    }

    @Test
    void theGrantsMessageProvesTheWaitersLastSecretWhichItDeletes() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquireRaw(A, LEASE, PLACE, "first", "", "first-secret");
        acquireRaw(A, LEASE, PLACE, "second", "", "second-secret");
        acquire(B);

        release(HOLDER);

        String token = tokenOf(A);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(A + " " + token + " " + FairLockRedis.sha1(token + ":second-secret"));
        assertThat(redis.hkeys(SECRETS)).as("used once: a replayed message proves nothing to A's next try").containsExactly(B);
    }

    @Test
    void aWaiterThatSentNoSecretIsGrantedAndWokenByNameAlone() throws Exception {
        acquire(HOLDER);
        assertThat(acquireRaw(A, LEASE, PLACE, "no-secret", "", "")).hasSize(3).element(2).isEqualTo("");
        assertThat(redis.exists(SECRETS)).isZero();
        BlockingQueue<String> messages = listen();

        release(HOLDER);

        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "0"));
        assertThat(messages.poll(2, TimeUnit.SECONDS)).as("its try takes the grant").isEqualTo(A);
    }

    @Test
    void takingTheLockFromTheHeadOfTheLineOrLeavingItDeletesTheWaitersSecret() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.del(LOCK);

        assertThat(acquire(A)).isNull();
        abandon(C);

        assertThat(redis.hkeys(SECRETS)).containsExactly(B);
    }

    @Test
    void anUnlockByAWaiterWhoseGrantIsNotTakenYetChangesNothing() throws Exception {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        release(HOLDER);
        String token = tokenOf(A);
        BlockingQueue<String> messages = listen();

        // Another async caller of A's owner id unlocks: A holds nothing yet, so nothing is
        // released. Before, the count 0 went to -1 as a last hold: the grant was deleted and B
        // granted while A could still enter on the grant's message.
        assertThat(release(A)).as("not held").isNull();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "0"));
        assertThat(tokenOf(A)).isEqualTo(token);
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("nobody is told anything").isNull();
    }

    @Test
    void aTryOfTheGrantedWaiterTakesTheHoldWithItsOwnLeaseAndWakesTheNextInLine() throws Exception {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        release(HOLDER);
        String token = tokenOf(A);
        BlockingQueue<String> messages = listen();

        List<Long> taken = acquireHolding(A, 300, PLACE, "call-" + ++calls, "");

        assertThat(taken).containsExactly(1L, 1L, Long.parseLong(token));
        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "1"));
        assertThat(redis.pttl(LOCK)).as("A's lease, shorter than the grant's place").isBetween(1L, 300L);
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).as("B, first now, watches A's lease").isEqualTo(B);
        assertThat(acquire(B)).isBetween(1L, 300L);
    }

    /**
     * B comes back by itself within half its place of its last try, so before its place runs out
     * minus half a place: a lease that outlasts B's place ends after that, and waking B would only
     * send it into a try just as a release pipelined behind the take grants it the lock.
     */
    @Test
    void aTakeWhoseLeaseOutlastsTheNextOnesPlaceWakesNobody() throws Exception {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        release(HOLDER);
        String token = tokenOf(A);
        BlockingQueue<String> messages = listen();

        List<Long> taken = acquireHolding(A, PLACE + 1_000, PLACE, "call-" + ++calls, token);

        assertThat(taken).containsExactly(1L, 1L, Long.parseLong(token));
        assertThat(redis.pttl(LOCK)).as("A's lease").isGreaterThan(PLACE);
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("nobody woken").isNull();
        assertThat(acquire(B)).as("B, first now, comes back within half its place").isEqualTo(PLACE / 2);
    }

    @Test
    void aTakeByTheGrantedTokenCountsOnceAndSentAgainWithItsCallIdChangesNothing() throws Exception {
        acquire(HOLDER);
        acquire(A);
        release(HOLDER);
        long token = Long.parseLong(tokenOf(A));

        assertThat(acquireHolding(A, LEASE, PLACE, "take", Long.toString(token))).containsExactly(1L, 1L, token);
        assertThat(acquireHolding(A, LEASE, PLACE, "take", Long.toString(token))).as("the same take again").containsExactly(1L, 1L, token);
        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "1"));
        assertThat(acquireHolding(A, LEASE, PLACE, "re-entry", Long.toString(token))).as("a re-entry counts").containsExactly(1L, 2L, token);
        assertThat(release(A)).isEqualTo(1L);
        assertThat(release(A)).isZero();
        assertThat(raw.keysOf(LOCK)).isEmpty();
    }

    @Test
    void aTakeOfAGrantThatWasForceReleasedAnswersMinusOne() {
        acquire(HOLDER);
        acquire(A);
        release(HOLDER);
        String token = tokenOf(A);
        forceRelease();

        assertThat(acquireHolding(A, token)).containsExactly(-1L, 0L);
        assertThat(raw.keysOf(LOCK)).isEmpty();
    }

    @Test
    void aGrantNeverTakenBlocksTheLockOnlyUntilTheWaitersPlaceRunsOut() throws Exception {
        acquire(HOLDER);
        acquire(A, LEASE, 400);
        acquire(B);
        release(HOLDER);
        assertThat(redis.pttl(LOCK)).isBetween(1L, 400L);

        Thread.sleep(500); // a real TTL must run out: A's place, 400 ms

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(acquire(B)).as("B, first in line, takes the free lock at its next try").isNull();
        assertThat(holds()).containsOnlyKeys(B);
    }

    @Test
    void releaseWithAnEmptyQueueDeletesTheLockAndPublishesNothing() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);

        assertThat(release(HOLDER)).isZero();

        assertThat(raw.keysOf(LOCK)).isEmpty();
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void releaseOfAReenteredLockKeepsItAndWakesNobody() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(HOLDER);
        acquire(A);

        assertThat(release(HOLDER)).isEqualTo(1L);

        assertThat(redis.hget(LOCK, HOLDER)).isEqualTo("1");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void releaseByANonOwnerOrOfAFreeLockAnswersNilAndChangesNothing() {
        assertThat(release(A)).isNull();
        acquire(HOLDER);
        acquire(A);

        assertThat(release(A)).isNull();

        assertThat(holds()).containsOnlyKeys(HOLDER);
        assertThat(raw.queue(LOCK)).containsExactly(A);
    }

    @Test
    void undoOfALostGrantGrantsTheFirstInLineAndAReleaseSentAgainDoesNothingMore() throws Exception {
        BlockingQueue<String> messages = listen();
        assertThat(acquire(A, LEASE, PLACE, "lost-grant")).isNull();
        acquire(B);

        assertThat(release(A, "lost-grant", "undo")).isZero();
        assertThat(release(A, "lost-grant", "undo")).isNull();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(B, "0"));
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(B));
    }

    @Test
    void undoOfALostTryThatTookAGrantFreesTheLockForTheNextInLine() throws Exception {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        release(HOLDER);
        assertThat(acquire(A, LEASE, PLACE, "lost-take")).isNull();
        BlockingQueue<String> messages = listen();

        assertThat(release(A, "lost-take", "undo")).isZero();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(B, "0"));
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(B));
    }

    @Test
    void aReentryWithAShorterLeaseNeverShortensTheFairHold() {
        acquire(A, 10_000, PLACE);

        assertThat(acquire(A, 300, PLACE)).isNull();

        assertThat(redis.pttl(LOCK)).isGreaterThan(9_000L);
    }

    @Test
    void endWithTheHoldsTokenEndsEveryLevelAndGrantsOnlyTheFirstInLine() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(HOLDER);
        acquire(A);
        acquire(B);

        assertThat(end(HOLDER, tokenOf(HOLDER))).isZero();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "0"));
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(A));
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void endOfAGrantNeverTakenGrantsTheNextInLine() throws Exception {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        release(HOLDER);
        BlockingQueue<String> messages = listen();

        assertThat(end(A, tokenOf(A))).isZero();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(B, "0"));
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(B));
    }

    @Test
    void endWithAStaleTokenAnswersNilAndSentAgainIsHarmless() throws Exception {
        acquire(HOLDER);
        String stale = tokenOf(HOLDER);
        redis.del(LOCK);
        acquire(HOLDER);
        acquire(A);
        Map<String, String> before = redis.hgetall(LOCK);
        BlockingQueue<String> messages = listen();

        assertThat(end(HOLDER, stale)).as("the hold before").isNull();
        assertThat(end(A, stale)).as("a waiter, which holds nothing").isNull();
        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();

        String current = tokenOf(HOLDER);
        assertThat(end(HOLDER, current)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(grantMessage(A));
        assertThat(acquire(A)).isNull();
        assertThat(end(HOLDER, current)).as("the same end again").isNull();
        assertThat(holds()).containsOnlyKeys(A);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    // ---- force-release.lua -------------------------------------------------------------------

    @Test
    void forceReleaseDeletesTheLockKeepsTheQueueAndWakesTheFirstInLine() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(HOLDER);
        acquire(A);
        acquire(B);

        assertThat(forceRelease()).isEqualTo(1L);
        assertThat(forceRelease()).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(raw.queue(LOCK)).containsExactly(A, B);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(A);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void forceReleaseWithAnEmptyQueuePublishesNothing() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);

        assertThat(forceRelease()).isEqualTo(1L);

        assertThat(raw.keysOf(LOCK)).isEmpty();
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    // ---- abandon.lua -------------------------------------------------------------------------

    @Test
    void abandonTakesTheWaiterOutOfBothKeysAndLeavesTheOthersInOrder() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);

        assertThat(abandon(B)).isEqualTo(1L);

        assertThat(raw.queue(LOCK)).containsExactly(A, C);
        assertThat(raw.timeouts(LOCK)).containsOnlyKeys(A, C);
        assertThat(abandon(A)).isEqualTo(1L);
        assertThat(abandon(C)).isEqualTo(1L);
        assertThat(raw.keysOf(LOCK)).containsExactly(LOCK);
    }

    @Test
    void abandonOfAWaiterNotInLineChangesNothing() {
        assertThat(abandon(A)).isZero();
        acquire(HOLDER);
        acquire(B);

        assertThat(abandon(A)).isZero();

        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(raw.timeouts(LOCK)).containsOnlyKeys(B);
    }

    @Test
    void abandonOfAWaiterWithoutADeadlineStillTakesItOutOfLine() {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.zrem(TIMEOUTS, B);

        assertThat(abandon(B)).isEqualTo(1L);

        assertThat(raw.queue(LOCK)).containsExactly(A);
    }

    @Test
    void abandonOfTheFirstInLineOfAFreeLockWakesTheNextOne() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        redis.del(LOCK);

        abandon(A);

        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void abandonOfTheFirstInLineWhileTheLockIsHeldWakesTheNextOneToWatchTheLease() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);

        abandon(A);

        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void abandonOfAWaiterWhoseGrantCameTooLateGivesItBackAndWakesTheNextOne() throws Exception {
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        release(HOLDER);
        BlockingQueue<String> messages = listen();

        assertThat(abandon(A)).isEqualTo(1L);

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(acquire(B)).as("B's try takes the free lock").isNull();
        assertThat(abandon(A)).as("sent again").isZero();
        assertThat(holds()).containsOnlyKeys(B);
    }

    @Test
    void abandonNeverGivesBackAHoldOnceTaken() {
        acquire(HOLDER);
        acquire(A);
        release(HOLDER);
        acquire(A);

        assertThat(abandon(A)).isZero();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "1"));
    }

    @Test
    void abandonByAnotherAttemptOfTheOwnerKeepsAGrantMadeOnTheLastAttemptsTry() throws Exception {
        acquire(HOLDER);
        acquireRaw(A, LEASE, PLACE, "first-attempt", "", "first-secret");
        acquireRaw(A, LEASE, PLACE, "second-attempt", "", "second-secret"); // the same field, another attempt
        acquire(B);
        release(HOLDER);
        String token = tokenOf(A);
        assertThat(redis.hget(LOCK, A + ":grant")).as("the proof its message carried")
                .isEqualTo(FairLockRedis.sha1(token + ":second-secret"));
        BlockingQueue<String> messages = listen();

        // The first attempt's wait ran out as the grant came; the second entered on its message.
        assertThat(abandon(A, "first-secret")).isZero();

        assertThat(holds()).as("not given back: the second attempt's take is on its way").containsExactlyEntriesOf(Map.of(A, "0"));
        assertThat(raw.queue(LOCK)).containsExactly(B);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("B keeps waiting for A's lease").isNull();
        assertThat(acquireHolding(A, LEASE, PLACE, "take", token)).containsExactly(1L, 1L, Long.parseLong(token));
    }

    @Test
    void abandonWithoutASecretKeepsAGrantMadeOnOne() {
        acquire(HOLDER);
        acquire(A);
        release(HOLDER);

        assertThat(abandon(A, "")).isZero();

        assertThat(holds()).containsExactlyEntriesOf(Map.of(A, "0"));
    }

    @Test
    void abandonGivesBackAGrantToldByNameAloneWhateverTheSecret() throws Exception {
        acquire(HOLDER);
        acquireRaw(A, LEASE, PLACE, "no-secret", "", "");
        acquire(B);
        release(HOLDER);
        assertThat(redis.hexists(LOCK, A + ":grant")).isFalse();
        BlockingQueue<String> messages = listen();

        assertThat(abandon(A, "any-secret")).as("no attempt enters on a name alone").isEqualTo(1L);

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(B);
    }

    @Test
    void abandonBehindTheFirstInLineWakesNobody() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(HOLDER);
        acquire(A);
        acquire(B);
        acquire(C);
        redis.del(LOCK);

        abandon(B);

        assertThat(raw.queue(LOCK)).containsExactly(A, C);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    // ---- machinery ---------------------------------------------------------------------------

    /** @return Redis's clock in microseconds, as TIME answers it to the scripts */
    private static long serverMicros() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    private static Long acquire(String caller) {
        return acquire(caller, LEASE, PLACE);
    }

    private static int calls;

    /** @return null if granted, else the wait bound */
    private static Long acquire(String caller, long leaseMillis, long placeMillis) {
        return acquire(caller, leaseMillis, placeMillis, "call-" + ++calls);
    }

    private static Long acquire(String caller, long leaseMillis, long placeMillis, String call) {
        List<Long> reply = acquireHolding(caller, leaseMillis, placeMillis, call, "");
        return reply.get(0) == 1L ? null : reply.get(1);
    }

    /** Each waiter's secret as its last try that queued left it, as a client would keep it. */
    private static final Map<String, String> lastSecrets = new java.util.HashMap<>();

    /**
     * Sends a secret of its own ({@code secret-<call>}) with every try, as a client does.
     *
     * @param held ARGV[6]: '' or the token of the hold to re-enter
     * @return the acquire script's answer: {1, hold count, token}, {0, the wait bound} (the secret
     *     it answers with is checked and kept in {@link #lastSecrets}) or {-1, 0}
     */
    private static List<Long> acquireHolding(String caller, long leaseMillis, long placeMillis, String call, String held) {
        String secret = "secret-" + call;
        List<Object> reply = acquireRaw(caller, leaseMillis, placeMillis, call, held, secret);
        if (reply.get(0).equals(0L)) {
            assertThat(reply).hasSize(3);
            assertThat(reply.get(2)).as("a queued try is answered with its secret").isEqualTo(secret);
            lastSecrets.put(caller, secret);
            return List.of(0L, (Long) reply.get(1));
        }
        return reply.stream().map(Long.class::cast).toList();
    }

    /** @return acquire.lua's reply as it is, for a try that sends {@code secret} as ARGV[7] */
    private static List<Object> acquireRaw(String caller, long leaseMillis, long placeMillis, String call, String held,
                                           String secret) {
        return redis.eval(FairLockRedis.script("acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, QUEUE, TIMEOUTS, CHANNEL, COUNTER, SECRETS},
                Long.toString(leaseMillis), caller, Long.toString(placeMillis), "publish", call, held, secret);
    }

    /** @return the message of release.lua's grant to {@code waiter}: its token, and the proof of its last secret */
    private static String grantMessage(String waiter) {
        String token = tokenOf(waiter);
        return waiter + " " + token + " " + FairLockRedis.sha1(token + ":" + lastSecrets.get(waiter));
    }

    /** @return the answer of a try that passes the caller's hold's token, or '' */
    private static List<Long> acquireHolding(String caller, String held) {
        return acquireHolding(caller, LEASE, PLACE, "call-" + ++calls, held);
    }

    /** @return the token in the lock hash of the caller's hold, or null */
    private static String tokenOf(String caller) {
        return redis.hget(LOCK, caller + ":token");
    }

    private static Long release(String owner) {
        return release(owner, "call-" + ++calls, "release");
    }

    private static Long release(String owner, String call, String mode) {
        return redis.eval(FairLockRedis.script("release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, QUEUE, CHANNEL, TIMEOUTS, COUNTER, SECRETS}, owner, "publish", call, mode);
    }

    /** @return release.lua's answer to mode 'end' for the hold with this token */
    private static Long end(String owner, String token) {
        return redis.eval(FairLockRedis.script("release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, QUEUE, CHANNEL, TIMEOUTS, COUNTER, SECRETS}, owner, "publish", "call-" + ++calls, "end", token);
    }

    /**
     * @return the lock hash's hold counts, without the fields that remember each owner's last
     *     call, its hold's token and the proof its grant was told with
     */
    private static Map<String, String> holds() {
        Map<String, String> holds = new java.util.TreeMap<>(redis.hgetall(LOCK));
        holds.keySet().removeIf(field -> field.endsWith(":call") || field.endsWith(":token") || field.endsWith(":grant"));
        return holds;
    }

    private static Long forceRelease() {
        return redis.eval(FairLockRedis.script("force-release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, QUEUE, CHANNEL}, "publish");
    }

    /** Gives up with the secret of the waiter's last try that queued, as its attempt would. */
    private static Long abandon(String waiter) {
        return abandon(waiter, lastSecrets.getOrDefault(waiter, ""));
    }

    private static Long abandon(String waiter, String secret) {
        return redis.eval(FairLockRedis.script("abandon.lua"), ScriptOutputType.INTEGER,
                new String[] {QUEUE, TIMEOUTS, CHANNEL, LOCK, SECRETS}, waiter, "publish", secret);
    }

    private BlockingQueue<String> listen() {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        pubSub = raw.pubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.add(message);
            }
        });
        pubSub.sync().subscribe(CHANNEL);
        return messages;
    }
}
