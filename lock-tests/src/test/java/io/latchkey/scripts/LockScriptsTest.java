package io.latchkey.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each script of the plain lock and the watchdog, called directly against a real Redis. */
class LockScriptsTest {

    private static final String LOCK = "scripts-lock";
    private static final String CHANNEL = "latchkey:{scripts-lock}:channel";
    /** The fencing counter of {@link #LOCK}'s hash slot. */
    private static final String COUNTER = LockKeys.of(LOCK).fenceCounter();
    private static final String OWNER = "client-a:1";
    private static final String OTHER = "client-b:2";
    private static final String TOKEN = OWNER + ":token";
    private static final String WAITING = LockKeys.of(LOCK).derived("waiting");
    private static final String TURN = LockKeys.of(LOCK).derived("turn");

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stopRedis() {
        connection.close();
        client.shutdown();
        server.close();
    }

    @BeforeEach
    void emptyRedis() {
        redis.flushall();
    }

    // ---- acquire.lua: holds, leases, answers -------------------------------------------------

    @Test
    void acquireOnAFreeLockTakesOneHoldWithTheLeaseAndANewToken() {
        List<Long> granted = acquire(OWNER, 10_000);

        assertThat(granted).hasSize(3).startsWith(1L, 1L);
        assertThat(redis.hgetall(LOCK)).containsOnlyKeys(OWNER, OWNER + ":call", TOKEN)
                .containsEntry(OWNER, "1").containsEntry(TOKEN, Long.toString(granted.get(2)));
        assertThat(redis.pttl(LOCK)).isBetween(9_000L, 10_000L);
    }

    @Test
    void aLeaseRedisCannotTakeIsRefusedBeforeAnythingIsWritten() {
        for (long lease : new long[] {0, -5, 31_536_000_001L, 100_000_000_000_000_000L, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> acquire(OWNER, lease)).hasMessageContaining("the lease must be 1 to 31536000000 ms");
            assertThat(redis.exists(LOCK, COUNTER)).as("lease %d", lease).isZero();
        }
        assertThat(acquire(OWNER, 31_536_000_000L)).startsWith(1L, 1L);
    }

    @Test
    void acquireByTheOwnerAgainCountsTheReentryAndResetsTheLease() {
        long token = acquire(OWNER, 1_000).get(2);

        assertThat(acquire(OWNER, 10_000)).containsExactly(1L, 2L, token);

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("2");
        assertThat(redis.pttl(LOCK)).isGreaterThan(9_000L);
    }

    @Test
    void reentryWithAShorterLeaseNeverShortensTheHold() {
        acquire(OWNER, 10_000);

        assertThat(acquire(OWNER, 300)).startsWith(1L, 2L);

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("2");
        assertThat(redis.pttl(LOCK)).as("the outer hold's lease, not the re-entry's 300 ms").isGreaterThan(9_000L);
    }

    @Test
    void acquireOfAHeldLockAnswersTheHoldersRemainingLeaseAndChangesNothing() {
        acquire(OWNER, 10_000);
        Map<String, String> before = redis.hgetall(LOCK);
        String counter = redis.get(COUNTER);

        List<Long> refused = acquire(OTHER, 30_000);

        assertThat(refused).hasSize(2).first().isEqualTo(0L);
        assertThat(refused.get(1)).isBetween(9_000L, 10_000L);
        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(redis.get(COUNTER)).as("no token was taken").isEqualTo(counter);
    }

    @Test
    void acquireOfALockWithoutExpiryAnswersMinusOneAsTheHoldersLease() {
        redis.hset(LOCK, OTHER, "1");

        assertThat(acquire(OWNER, 10_000)).containsExactly(0L, -1L);
    }

    // ---- acquire.lua: fencing tokens ---------------------------------------------------------

    @Test
    void aNewHoldTakesRedisClockInMicrosecondsWhenTheCounterIsBehindItAndKeepsTheTokenInTheHash() {
        redis.set(COUNTER, "41");
        long before = serverMicros();

        List<Long> granted = acquire(OWNER, 10_000);

        long token = granted.get(2);
        assertThat(token).as("Redis TIME in µs during the call").isBetween(before, serverMicros());
        assertThat(redis.get(COUNTER)).as("the counter ends at the token").isEqualTo(Long.toString(token));
        assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(token));
        assertThat(redis.pttl(COUNTER)).as("the counter never expires").isEqualTo(-1L);
    }

    @Test
    void aNewHoldTakesTheCounterPlusOneWhenTheCounterIsAheadOfTheClock() {
        long ahead = serverMicros() + TimeUnit.HOURS.toMicros(1);
        redis.set(COUNTER, Long.toString(ahead));

        assertThat(acquire(OWNER, 10_000)).containsExactly(1L, 1L, ahead + 1);

        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(ahead + 1));
        assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(ahead + 1));
    }

    /**
     * A Lua number may reach Redis as "4.0e+15" (Redis 7.2 writes the shortest form): neither
     * INCRBY nor a re-entry's comparison with the token could read that.
     */
    @Test
    void roundTokensAndTokensJustBelowTwoToTheFiftyThreeAreWrittenAndAnsweredExactly() {
        for (long token : new long[] {4_000_000_000_000_000L, (1L << 53) - 1}) {
            redis.flushall();
            redis.set(COUNTER, Long.toString(token - 1));

            assertThat(acquire(OWNER, 10_000)).containsExactly(1L, 1L, token);

            assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
            assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(token));
            assertThat(acquireHolding(OWNER, Long.toString(token))).as("a re-entry by the token").containsExactly(1L, 2L, token);
        }
    }

    @Test
    void aCounterThatLeavesNoRoomBelowTwoToTheFiftyThreeOrIsNoCountIsRefusedBeforeAnythingIsWritten() {
        for (String counter : new String[] {Long.toString((1L << 53) - 1), "-5", "not-a-number", "1.5"}) {
            redis.flushall();
            redis.set(COUNTER, counter);

            assertThatThrownBy(() -> acquire(OWNER, 10_000)).as(counter)
                    .hasMessageContaining("the fencing counter " + COUNTER + " holds " + counter);

            assertThat(redis.exists(LOCK)).as("%s: no lock hash", counter).isZero();
            assertThat(redis.get(COUNTER)).isEqualTo(counter);
        }
        redis.set(COUNTER, Long.toString((1L << 53) - 33));
        assertThat(cohortAcquire(OWNER)).as("a block of 32 that ends at 2^53 - 1").startsWith(1L, 1L, (1L << 53) - 32);
        redis.del(LOCK);
        assertThatThrownBy(() -> cohortAcquire(OWNER)).as("and no room for another").hasMessageContaining("leaves room for 32 more");
    }

    @Test
    void aReentryWithoutATokenKeepsTheHoldsTokenAndTakesNoNewOne() {
        long token = acquire(OWNER, 10_000).get(2);

        assertThat(acquire(OWNER, 10_000)).containsExactly(1L, 2L, token);
        assertThat(acquire(OWNER, 10_000)).containsExactly(1L, 3L, token);

        assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(token));
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
    }

    @Test
    void aReentryWithTheHoldsTokenReentersIt() {
        long token = acquire(OWNER, 10_000).get(2);

        assertThat(acquireHolding(OWNER, Long.toString(token))).containsExactly(1L, 2L, token);

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("2");
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
    }

    @Test
    void aReentryWithAnotherTokenThanTheOwnersHoldAnswersMinusOneAndChangesNothing() {
        long first = acquire(OWNER, 10_000, "first-hold").get(2);
        redis.del(LOCK);
        long second = acquire(OWNER, 10_000, "second-hold").get(2);
        acquire(OWNER, 10_000, "second-hold-again");
        Map<String, String> before = redis.hgetall(LOCK);

        assertThat(acquireHolding(OWNER, Long.toString(first))).as("the first hold's token").containsExactly(-1L, 0L);
        assertThat(acquireHolding(OWNER, Long.toString(second + 1))).as("a token no hold had").containsExactly(-1L, 0L);

        assertThat(redis.hgetall(LOCK)).isEqualTo(before).containsEntry(OWNER, "2").containsEntry(TOKEN, Long.toString(second));
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(second));
    }

    @Test
    void aReentryWithTheTokenOfAHoldThatIsGoneAnswersMinusOneAndTakesNothing() {
        long token = acquire(OWNER, 10_000).get(2);
        redis.del(LOCK);

        assertThat(acquireHolding(OWNER, Long.toString(token))).as("the lock is free").containsExactly(-1L, 0L);
        assertThat(redis.exists(LOCK)).as("no new hold was started").isZero();

        long others = acquire(OTHER, 10_000).get(2);
        Map<String, String> before = redis.hgetall(LOCK);
        assertThat(acquireHolding(OWNER, Long.toString(token))).as("another owner holds it").containsExactly(-1L, 0L);
        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(others));
    }

    @Test
    void freshReplacesTheOwnersHoldWithOneHoldAGreaterTokenAndItsOwnLease() {
        long lost = acquire(OWNER, 1_000, "lost-hold").get(2);
        acquire(OWNER, 1_000);
        acquire(OWNER, 1_000);

        List<Long> fresh = acquire(LOCK, OWNER, 10_000, "fresh-hold", "fresh");

        assertThat(fresh).hasSize(3).startsWith(1L, 1L);
        assertThat(fresh.get(2)).isGreaterThan(lost);
        assertThat(redis.hgetall(LOCK)).isEqualTo(Map.of(OWNER, "1", OWNER + ":call", "fresh-hold", TOKEN, Long.toString(fresh.get(2))));
        assertThat(redis.pttl(LOCK)).isGreaterThan(9_000L);
    }

    @Test
    void freshOnAFreeLockStartsANewHold() {
        List<Long> fresh = acquireHolding(OWNER, "fresh");

        assertThat(fresh).hasSize(3).startsWith(1L, 1L);
        assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(fresh.get(2)));
    }

    @Test
    void freshIsRefusedWithTheHoldersLeaseWhileAnotherOwnerHolds() {
        long token = acquire(OTHER, 10_000).get(2);
        Map<String, String> before = redis.hgetall(LOCK);

        List<Long> refused = acquireHolding(OWNER, "fresh");

        assertThat(refused).hasSize(2).first().isEqualTo(0L);
        assertThat(refused.get(1)).isBetween(9_000L, 10_000L);
        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
    }

    @Test
    void aNewHoldAfterTheLockHashWasDeletedGetsAGreaterToken() {
        long first = acquire(OWNER, 10_000).get(2);
        redis.del(LOCK); // as its lease running out would

        long second = acquire(OTHER, 10_000).get(2);

        assertThat(second).isGreaterThan(first);
        assertThat(redis.hget(LOCK, OTHER + ":token")).isEqualTo(Long.toString(second));
    }

    @Test
    void namesInOneSlotShareTheCounterAndEachNamesTokensIncrease() {
        String orders = "{shop}:orders";
        String payments = "{shop}:payments";
        String counter = LockKeys.of(orders).fenceCounter();
        assertThat(LockKeys.of(payments).fenceCounter()).isEqualTo(counter);

        long orders1 = acquire(orders, OWNER, 10_000, "o1", "").get(2);
        long payments1 = acquire(payments, OWNER, 10_000, "p1", "").get(2);
        redis.del(orders);
        long orders2 = acquire(orders, OTHER, 10_000, "o2", "").get(2);
        redis.del(payments);
        long payments2 = acquire(payments, OTHER, 10_000, "p2", "").get(2);

        assertThat(payments1).isGreaterThan(orders1);
        assertThat(orders2).isGreaterThan(payments1);
        assertThat(payments2).isGreaterThan(orders2);
        assertThat(redis.get(counter)).isEqualTo(Long.toString(payments2));
    }

    @Test
    void aHoldWithoutATokenFieldAsA01ClientLeftItGetsOneAtItsNextReentry() {
        redis.set(COUNTER, "5");
        redis.hset(LOCK, Map.of(OWNER, "1", OWNER + ":call", "call-of-0.1"));
        redis.pexpire(LOCK, 10_000);

        List<Long> granted = acquire(OWNER, 10_000);
        long token = granted.get(2);
        assertThat(granted).containsExactly(1L, 2L, token);
        assertThat(token).isGreaterThan(5L);
        assertThat(acquire(OWNER, 10_000)).as("and keeps it").containsExactly(1L, 3L, token);

        assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(token));
    }

    /**
     * Redis runs a script's commands up to the one the user may not run, and keeps what they
     * wrote: a lock hash written before a refused command would be left without an expiry, held
     * by nobody, forever.
     */
    @Test
    void aUserWhoMayNotIncrementTheCounterIsRefusedBeforeTheLockHashChanges() {
        server.command("ACL", "SETUSER", "no-incr", "on", ">pw", "~*", "&*", "+@all", "-incrby");
        RedisClient limitedClient = RedisClient.create("redis://no-incr:pw@" + server.host() + ":" + server.port());
        try (StatefulRedisConnection<String, String> limited = limitedClient.connect()) {
            assertThatThrownBy(() -> limited.sync().eval(script("lock/acquire.lua"), ScriptOutputType.MULTI,
                    new String[] {LOCK, COUNTER}, "10000", OWNER, "refused-call", ""))
                    .hasMessageContaining("can't run this command");

            assertThat(redis.exists(LOCK)).as("no lock hash left behind").isZero();
            assertThat(redis.exists(COUNTER)).isZero();
        } finally {
            limitedClient.shutdown();
            server.command("ACL", "DELUSER", "no-incr");
        }
    }

    // ---- release.lua -------------------------------------------------------------------------

    @Test
    void undoTakesBackExactlyTheGrantOfItsCallAndOnlyOnce() {
        long token = acquire(OWNER, 10_000).get(2);
        acquire(OWNER, 10_000, "lost-grant");

        assertThat(release(OWNER, "lost-grant", "undo")).isEqualTo(1L);
        assertThat(release(OWNER, "lost-grant", "undo")).as("a second undo of the same call").isNull();

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("1");
        assertThat(redis.hget(LOCK, TOKEN)).as("the outer hold keeps its token").isEqualTo(Long.toString(token));
    }

    @Test
    void undoOfAGrantThatNeverHappenedLeavesTheEarlierHoldAlone() {
        acquire(OWNER, 10_000, "held-before");

        assertThat(release(OWNER, "grant-that-never-ran", "undo")).isNull();

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("1");
    }

    @Test
    void undoOfTheOnlyHoldDeletesTheLockAndPublishes() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(OWNER, 10_000, "lost-grant");

        assertThat(release(OWNER, "lost-grant", "undo")).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("");
    }

    @Test
    void undoOfANewHoldLeavesNoHoldAndTheCounterAdvanced() {
        long token = acquire(OWNER, 10_000, "lost-grant").get(2);

        assertThat(release(OWNER, "lost-grant", "undo")).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(redis.get(COUNTER)).as("the undone hold's token is a gap now").isEqualTo(Long.toString(token));
        List<Long> next = acquire(OTHER, 10_000);
        assertThat(next).startsWith(1L, 1L);
        assertThat(next.get(2)).isGreaterThan(token);
    }

    @Test
    void aReleaseSentAgainAfterItRanReleasesNothingMore() {
        acquire(OWNER, 10_000);
        acquire(OWNER, 10_000);
        acquire(OWNER, 10_000);

        assertThat(release(OWNER, "lost-release", "release")).isEqualTo(2L);
        assertThat(release(OWNER, "lost-release", "release")).as("the same release settled again").isEqualTo(2L);

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("2");
    }

    @Test
    void aReleaseSentAgainAfterItDeletedTheLockFindsNothingToDo() {
        acquire(OWNER, 10_000);
        assertThat(release(OWNER, "lost-release", "release")).isZero();
        acquire(OTHER, 10_000);

        assertThat(release(OWNER, "lost-release", "release")).isNull();

        assertThat(redis.hget(LOCK, OTHER)).isEqualTo("1");
    }

    @Test
    void releaseByTheOwnerDeletesTheLockAndPublishesOnce() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(OWNER, 10_000);

        assertThat(release(OWNER)).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("");
    }

    @Test
    void releaseOfAReenteredLockKeepsItAndPublishesNothing() throws Exception {
        BlockingQueue<String> messages = listen();
        long token = acquire(OWNER, 10_000).get(2);
        acquire(OWNER, 10_000);

        assertThat(release(OWNER)).isEqualTo(1L);

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("1");
        assertThat(redis.hget(LOCK, TOKEN)).isEqualTo(Long.toString(token));
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void releaseByANonOwnerAnswersNilAndLeavesTheLockAlone() {
        acquire(OWNER, 10_000);

        assertThat(release(OTHER)).isNull();
        assertThat(release(OTHER)).isNull();

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("1");
    }

    @Test
    void releaseOfAFreeLockAnswersNil() {
        assertThat(release(OWNER)).isNull();
        assertThat(redis.exists(LOCK)).isZero();
    }

    @Test
    void endWithTheHoldsTokenDeletesTheLockWithEveryLevelAndPublishes() throws Exception {
        BlockingQueue<String> messages = listen();
        long token = acquire(OWNER, 10_000).get(2);
        acquire(OWNER, 10_000);
        acquire(OWNER, 10_000);

        assertThat(end(OWNER, token)).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("");
        assertThat(redis.get(COUNTER)).as("the counter stays").isEqualTo(Long.toString(token));
    }

    @Test
    void endWithAStaleTokenAnswersNilAndLeavesTheNewerHoldAlone() throws Exception {
        long stale = acquire(OWNER, 10_000).get(2);
        redis.del(LOCK);
        acquire(OWNER, 10_000);
        Map<String, String> before = redis.hgetall(LOCK);
        BlockingQueue<String> messages = listen();

        assertThat(end(OWNER, stale)).isNull();
        assertThat(end(OTHER, stale)).as("another owner's field").isNull();

        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void endSentAgainFindsNothingToDoAndLeavesTheNextHolderAlone() throws Exception {
        BlockingQueue<String> messages = listen();
        long token = acquire(OWNER, 10_000).get(2);
        assertThat(end(OWNER, token)).isZero();
        acquire(OTHER, 10_000);

        assertThat(end(OWNER, token)).isNull();

        assertThat(redis.hget(LOCK, OTHER)).isEqualTo("1");
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("one message, from the first end").isNull();
    }

    @Test
    void endOfAFreeLockAnswersNil() {
        assertThat(end(OWNER, 1)).isNull();
        assertThat(redis.exists(LOCK)).isZero();
    }

    // ---- force-release.lua -------------------------------------------------------------------

    @Test
    void forceReleaseDeletesWhoeverHoldsItAndSaysWhetherItExisted() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(OWNER, 10_000);

        assertThat(forceRelease()).isEqualTo(1L);
        assertThat(forceRelease()).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    // ---- watchdog/renew.lua ------------------------------------------------------------------

    @Test
    void renewResetsTheLeaseOfHoldsThatExistAndReportsTheLostOnes() {
        acquire(OWNER, 1_000);
        redis.hset("other-lock", OTHER, "1");
        redis.pexpire("other-lock", 1_000);

        List<Object> renewed = redis.eval(script("watchdog/renew.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, "other-lock", "gone-lock"}, "30000", OWNER, OWNER, OWNER);

        assertThat(renewed).containsExactly(1L, 0L, 0L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(29_000L);
        assertThat(redis.pttl("other-lock")).isLessThanOrEqualTo(1_000L);
        assertThat(redis.exists("gone-lock")).isZero();
    }

    @Test
    void renewNeverShortensALongerLease() {
        acquire(OWNER, 60_000);

        List<Object> renewed = redis.eval(script("watchdog/renew.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK}, "1000", OWNER);

        assertThat(renewed).containsExactly(1L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(59_000L);
    }

    @Test
    void renewReportsAKeyOfTheWrongTypeAsLostForThatHoldOnlyAndRenewsTheRest() {
        acquire(OWNER, 1_000);
        redis.set("now-a-string", "x");

        List<Object> renewed = redis.eval(script("watchdog/renew.lua"), ScriptOutputType.MULTI,
                new String[] {"now-a-string", LOCK}, "30000", OWNER, OWNER);

        assertThat(renewed).containsExactly(0L, 1L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(29_000L);
        assertThat(redis.get("now-a-string")).isEqualTo("x");
    }

    // ---- a cohort's calls (local hand-off): the waiting mark and the turn -----------------------

    @Test
    void aCohortTryThatFindsTheLockHeldMarksItsClientAndTellsTheHolder() throws Exception {
        cohortAcquire(OWNER);
        BlockingQueue<String> messages = listen();

        List<Long> refused = cohortAcquire(OTHER);

        assertThat(refused).first().isEqualTo(0L);
        assertThat(redis.get(WAITING)).isEqualTo("client-b");
        assertThat(redis.pttl(WAITING)).as("one lease of the waiter's try").isBetween(9_000L, 10_000L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("!wait:client-b");
    }

    @Test
    void aMarkOrTurnOfTheWrongTypeFailsTheTryBeforeAnythingIsWritten() {
        // Before: the script read the mark after writing the hold, so WRONGTYPE left the lock
        // hash without an expiry: locked for ever (issue 27, finding 1).
        for (String key : List.of(WAITING, TURN)) {
            redis.flushall();
            redis.hset(key, "impostor", "1");

            assertThatThrownBy(() -> cohortAcquire(OWNER)).hasMessageContaining("WRONGTYPE");

            assertThat(redis.exists(LOCK, COUNTER)).as("%s: nothing written", key).isZero();
        }
    }

    @Test
    void aCohortHoldReservesABlockOfTokensAndMarksItselfForForceRelease() {
        redis.set(COUNTER, "10");
        long before = serverMicros();

        List<Long> granted = cohortAcquire(OWNER);

        long token = granted.get(2);
        assertThat(granted).as("granted, count, token, no other client waits").containsExactly(1L, 1L, token, 0L);
        assertThat(token).as("the block starts at Redis's clock").isBetween(before, serverMicros());
        assertThat(redis.get(COUNTER)).as("at the block's last token").isEqualTo(Long.toString(token + 31));
        assertThat(redis.hget(LOCK, "cohort")).isEqualTo(Long.toString(token));
    }

    @Test
    void aCohortHoldsBlockFollowsTheCounterWhenTheCounterIsAheadOfTheClock() {
        long ahead = serverMicros() + TimeUnit.HOURS.toMicros(1);
        redis.set(COUNTER, Long.toString(ahead));

        assertThat(cohortAcquire(OWNER)).containsExactly(1L, 1L, ahead + 1, 0L);

        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(ahead + 32));
        redis.del(LOCK);
        assertThat(cohortAcquire(OTHER)).as("the next block follows it").containsExactly(1L, 1L, ahead + 33, 0L);
    }

    @Test
    void theCohortReleaseThatDeletesTheLockReservesItForTheMarkedClient() throws Exception {
        cohortAcquire(OWNER);
        cohortAcquire(OTHER);
        BlockingQueue<String> messages = listen();

        assertThat(cohortRelease(OWNER)).isEqualTo(0L);

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(redis.get(TURN)).isEqualTo("client-b");
        assertThat(redis.pttl(TURN)).isBetween(1L, 250L);
        assertThat(redis.exists(WAITING)).as("the mark became the turn").isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("the unlock message").isEmpty();
    }

    @Test
    void duringAnotherClientsTurnACohortTryTakesNothingAndMarksItsOwnClient() throws Exception {
        redis.set(TURN, "client-b", SetArgs.Builder.px(10_000));
        BlockingQueue<String> messages = listen();

        List<Long> refused = cohortAcquire(OWNER);

        assertThat(refused).first().isEqualTo(0L);
        assertThat(refused.get(1)).as("the turn's time left").isBetween(9_000L, 10_000L);
        assertThat(redis.exists(LOCK)).isZero();
        assertThat(redis.get(WAITING)).isEqualTo("client-a");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("!wait:client-a");
    }

    @Test
    void theClientWhoseTurnItIsTakesTheLockEndsTheTurnAndIsToldOfTheNextWaiter() throws Exception {
        redis.set(TURN, "client-b", SetArgs.Builder.px(10_000));
        cohortAcquire(OWNER);
        BlockingQueue<String> messages = listen();

        List<Long> granted = cohortAcquire(OTHER);

        assertThat(granted).startsWith(1L, 1L);
        assertThat(granted.get(3)).as("the grant tells the new holder that another client waits").isEqualTo(1L);
        assertThat(redis.exists(TURN)).isZero();
        assertThat(redis.get(WAITING)).as("the other client still waits").isEqualTo("client-a");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("told again, to the new holder").isEqualTo("!wait:client-a");
    }

    @Test
    void aTryWithoutTheCohortKeysIgnoresTheTurn() {
        redis.set(TURN, "client-b", SetArgs.Builder.px(10_000));

        assertThat(acquire(OWNER, 10_000)).startsWith(1L, 1L);
    }

    @Test
    void aRequeueReservesTheTurnForTheMarkedClientThenMarksItsOwnSoThatTheNextGrantIsToldOfIt() {
        cohortAcquire(OWNER);
        cohortAcquire(OTHER);

        assertThat(cohortRelease(OWNER, "requeue")).isEqualTo(0L);

        assertThat(redis.get(TURN)).isEqualTo("client-b");
        assertThat(redis.get(WAITING)).isEqualTo("client-a");
        assertThat(redis.pttl(WAITING)).isBetween(1L, 10_000L);
        List<Long> granted = cohortAcquire(OTHER);
        assertThat(granted).startsWith(1L, 1L);
        assertThat(granted.get(3)).as("the turn's grant is told that the releasing client waits").isEqualTo(1L);
    }

    @Test
    void aRequeueThatLeavesTheLockHeldMarksNothing() {
        cohortAcquire(OWNER);
        cohortAcquire(OWNER);

        assertThat(cohortRelease(OWNER, "requeue")).isEqualTo(1L);

        assertThat(redis.exists(TURN, WAITING)).isZero();
    }

    @Test
    void aCohortReleaseWithNobodyMarkedReservesNothing() {
        cohortAcquire(OWNER);

        assertThat(cohortRelease(OWNER)).isEqualTo(0L);

        assertThat(redis.exists(TURN, WAITING)).isZero();
    }

    // ---- machinery ---------------------------------------------------------------------------

    /** @return Redis's clock in microseconds, as TIME answers it to the scripts */
    private static long serverMicros() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    private static int calls;

    /** @return the acquire script's answer: {1, hold count, token}, {0, the holder's lease} or {-1, 0} */
    private static List<Long> acquire(String owner, long leaseMillis) {
        return acquire(owner, leaseMillis, "call-" + ++calls);
    }

    private static List<Long> acquire(String owner, long leaseMillis, String call) {
        return acquire(LOCK, owner, leaseMillis, call, "");
    }

    /** @param held ARGV[4]: '', 'fresh' or the token of the hold to re-enter */
    private static List<Long> acquireHolding(String owner, String held) {
        return acquire(LOCK, owner, 10_000, "call-" + ++calls, held);
    }

    private static List<Long> acquire(String lock, String owner, long leaseMillis, String call, String held) {
        List<Object> reply = redis.eval(script("lock/acquire.lua"), ScriptOutputType.MULTI,
                new String[] {lock, LockKeys.of(lock).fenceCounter()}, Long.toString(leaseMillis), owner, call, held);
        return reply.stream().map(Long.class::cast).toList();
    }

    private static Long release(String owner) {
        return release(owner, "call-" + ++calls, "release");
    }

    private static Long release(String owner, String call, String mode) {
        return redis.eval(script("lock/release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, CHANNEL}, owner, "publish", call, mode);
    }

    /** @return release.lua's answer to mode 'end' for the hold with this token */
    private static Long end(String owner, long token) {
        return redis.eval(script("lock/release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, CHANNEL}, owner, "publish", "call-" + ++calls, "end", Long.toString(token));
    }

    /** acquire.lua as a cohort calls it: a block of 32 tokens, the mark, the turn and the channel. */
    private static List<Long> cohortAcquire(String owner) {
        List<Object> reply = redis.eval(script("lock/acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, COUNTER, WAITING, TURN, CHANNEL}, "10000", owner, "call-" + ++calls, "", "32", "publish");
        return reply.stream().map(Long.class::cast).toList();
    }

    private static Long cohortRelease(String owner) {
        return cohortRelease(owner, "release");
    }

    /** release.lua as a cohort calls it: with the mark, the turn, a turn of 250 ms and a mark of 10 s. */
    private static Long cohortRelease(String owner, String mode) {
        return redis.eval(script("lock/release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, CHANNEL, WAITING, TURN}, owner, "publish", "call-" + ++calls, mode, "", "250", "10000");
    }

    private static Long forceRelease() {
        return redis.eval(script("lock/force-release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, CHANNEL}, "publish");
    }

    private static BlockingQueue<String> listen() {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.add(message);
            }
        });
        pubSub.sync().subscribe(CHANNEL);
        return messages;
    }

    private static String script(String path) {
        return ScriptsOnRedis.script(path);
    }
}
