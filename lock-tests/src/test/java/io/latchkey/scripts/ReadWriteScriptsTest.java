package io.latchkey.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
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
 * Each script of the read-write lock, called directly against a real Redis. A lease that has
 * ended is arranged by moving its end into the past in the leases set, as Redis time would;
 * nothing here sleeps.
 */
class ReadWriteScriptsTest {

    private static final String LOCK = "scripts-rw";
    private static final String LEASES = "latchkey:{scripts-rw}:leases";
    private static final String WRITERS = "latchkey:{scripts-rw}:writers";
    private static final String CHANNEL = "latchkey:{scripts-rw}:channel";
    private static final String READ_CHANNEL = "latchkey:{scripts-rw}:read-channel";
    private static final String COUNTER = LockKeys.of(LOCK).fenceCounter();
    private static final String[] ALL_KEYS = {LOCK, LEASES, WRITERS, CHANNEL, READ_CHANNEL};
    private static final String A = "client-a:1";
    private static final String B = "client-b:2";
    private static final String C = "client-c:3";
    /** A waiting writer's place, as the client passes it: its watchdog lease. */
    private static final long PLACE = 30_000;
    /** A lease that long ago: the hold is gone, whatever the hash says. */
    private static final double ENDED = 1;

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static int calls;

    private StatefulRedisPubSubConnection<String, String> pubSub;

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

    @AfterEach
    void stopListening() {
        if (pubSub != null) {
            pubSub.close();
        }
    }

    // ---- acquire.lua: the read side -------------------------------------------------------

    @Test
    void aLeaseRedisCannotTakeIsRefusedBeforeAnythingIsWrittenOnEitherSide() {
        // Before: 10^17 ms failed PEXPIRE after the hold was written: a read hold with no expiry.
        for (String side : new String[] {"read", "write"}) {
            for (long lease : new long[] {0, -5, 31_536_000_001L, 100_000_000_000_000_000L, Long.MAX_VALUE}) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> acquire(side, A, "", lease, "call-" + ++calls, ""))
                        .hasMessageContaining("the lease must be 1 to 31536000000 ms");
                assertThat(redis.exists(LOCK, LEASES, WRITERS, COUNTER)).as("%s, lease %d", side, lease).isZero();
            }
        }
    }

    @Test
    void aCounterWithoutRoomRefusesANewHoldBeforeTheCleanUpsWrite() {
        // A hold whose lease ended: a new hold's try drops it, a write (review).
        redis.hset(LOCK, Map.of("mode", "read", r(B), "1", r(B) + ":token", "7"));
        redis.zadd(LEASES, ENDED, r(B));
        redis.set(COUNTER, Long.toString((1L << 53) - 1));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> read(A, 10_000))
                .hasMessageContaining("leaves room for 1 more below 2^53");

        assertThat(redis.hgetall(LOCK)).containsEntry(r(B), "1");
        assertThat(redis.zscore(LEASES, r(B))).isEqualTo(ENDED);
    }

    @Test
    void aSemaphorePermitWithALeaseRedisCannotTakeIsRefusedBeforeAnythingIsWritten() {
        String permits = LockKeys.of("permits").derived("permits");
        String limit = LockKeys.of("permits").derived("permit-limit");
        for (long lease : new long[] {0, 31_536_000_001L, Long.MAX_VALUE}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> redis.eval(semaphoreScript(), ScriptOutputType.MULTI,
                    new String[] {permits, limit}, Long.toString(lease), "permit-1", "2"))
                    .hasMessageContaining("the lease must be 1 to 31536000000 ms");
            assertThat(redis.exists(permits, limit)).as("lease %d", lease).isZero();
        }
    }

    private static String semaphoreScript() {
        return ScriptsOnRedis.script("semaphore/acquire.lua");
    }

    @Test
    void aFreeLockIsReadWithOneHoldItsOwnLeaseAndANewToken() {
        long token = newToken(read(A, 10_000), 0);

        assertThat(redis.hgetall(LOCK)).containsOnlyKeys("mode", r(A), r(A) + ":call", r(A) + ":token")
                .containsEntry("mode", "read").containsEntry(r(A), "1").containsEntry(r(A) + ":token", Long.toString(token));
        assertThat(leaseLeft(r(A))).isBetween(9_000L, 10_000L);
        assertThat(redis.pttl(LOCK)).isBetween(9_000L, 10_000L);
        assertThat(redis.pttl(LEASES)).isBetween(9_000L, 10_000L);
    }

    @Test
    void readersShareTheLockEachWithAHoldAndATokenOfItsOwn() {
        long a = newToken(read(A, 10_000), 0);
        long b = newToken(read(B, 20_000), a);
        newToken(read(C, 5_000), b);

        assertThat(redis.zcard(LEASES)).isEqualTo(3);
        assertThat(redis.pttl(LOCK)).as("the keys last as long as the latest lease").isBetween(19_000L, 20_000L);
        assertThat(redis.pttl(LEASES)).isBetween(19_000L, 20_000L);
    }

    @Test
    void aReadersReentryCountsAndResetsItsLeaseButNeverShortensIt() {
        long token = read(A, 1_000).get(2);

        assertThat(read(A, 10_000)).containsExactly(1L, 2L, token);
        assertThat(leaseLeft(r(A))).isGreaterThan(9_000L);
        assertThat(read(A, 300)).containsExactly(1L, 3L, token);

        assertThat(leaseLeft(r(A))).as("the hold's lease, not the re-entry's 300 ms").isGreaterThan(9_000L);
        assertThat(redis.hget(LOCK, r(A))).isEqualTo("3");
        assertThat(redis.get(COUNTER)).as("a re-entry takes no token").isEqualTo(Long.toString(token));
    }

    @Test
    void aNewReaderWaitsForAnotherOwnersWriterAsLongAsItsLeaseAndNothingChanges() {
        long token = write(A, 10_000).get(2);
        Map<String, String> before = redis.hgetall(LOCK);

        List<Long> refused = read(B, 10_000);

        assertThat(refused).hasSize(2).first().isEqualTo(0L);
        assertThat(refused.get(1)).isBetween(9_000L, 10_000L);
        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
    }

    @Test
    void theWritersOwnReadIsGrantedAlsoWhileOtherWritersWait() {
        long writing = write(A, 10_000).get(2);
        assertThat(write(B, 10_000).get(0)).isZero();

        newToken(read(A, 10_000), writing);

        assertThat(redis.hget(LOCK, "mode")).isEqualTo("write");
        assertThat(redis.hget(LOCK, "writer")).isEqualTo(w(A));
    }

    @Test
    void aNewReaderWaitsBehindALiveWaitingWriterWhileAReaderAlreadyInReentersIt() {
        long token = read(A, 10_000).get(2);
        assertThat(write(B, 10_000).get(0)).as("B waits for A").isZero();

        List<Long> refused = read(C, 10_000);
        assertThat(refused.get(0)).as("C arrived after B").isZero();
        assertThat(refused.get(1)).as("at most until B's place runs out").isBetween(PLACE - 1_000, PLACE);

        assertThat(read(A, 10_000)).as("A is no new arrival").containsExactly(1L, 2L, token);
        assertThat(readHolding(A, Long.toString(token))).containsExactly(1L, 3L, token);
    }

    @Test
    void aWaitingWriterWhosePlaceRanOutHoldsNoReaderBack() {
        redis.zadd(WRITERS, ENDED, w(B));

        newToken(read(C, 10_000), 0);
    }

    @Test
    void aReadHoldWhoseLeaseEndedIsGoneAndItsOwnersNextReadIsANewHold() {
        long ended = read(A, 10_000).get(2);
        redis.zadd(LEASES, ENDED, r(A));

        assertThat(readHolding(A, Long.toString(ended))).as("a re-entry of the ended hold").containsExactly(-1L, 0L);
        newToken(read(A, 10_000), ended);

        assertThat(redis.hget(LOCK, r(A))).isEqualTo("1");
        assertThat(leaseLeft(r(A))).isGreaterThan(9_000L);
    }

    @Test
    void aReentryWithAnotherTokenThanTheHoldsAnswersMinusOneAndChangesNothing() {
        long token = read(A, 10_000).get(2);
        Map<String, String> before = redis.hgetall(LOCK);

        assertThat(readHolding(A, Long.toString(token + 1))).containsExactly(-1L, 0L);
        assertThat(readHolding(B, Long.toString(token))).as("another owner's token").containsExactly(-1L, 0L);

        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
    }

    @Test
    void holdsWhoseLeasesEndedAreClearedTenPerTrySoTheyNeverPileUp() {
        for (int i = 0; i < 15; i++) {
            String dead = "dead-" + i + ":read";
            redis.hset(LOCK, Map.of(dead, "1", dead + ":call", "c", dead + ":token", "1", "mode", "read"));
            redis.zadd(LEASES, ENDED, dead);
        }
        read(A, 10_000);
        assertThat(redis.zcard(LEASES)).as("A and 5 dead holds").isEqualTo(6);

        read(B, 10_000);
        assertThat(redis.zrange(LEASES, 0, -1)).containsExactlyInAnyOrder(r(A), r(B));
        assertThat(redis.hkeys(LOCK)).allMatch(field -> !field.startsWith("dead-"));
    }

    @Test
    void aNameThatAnotherLockKindHoldsIsBusyForTheRestOfItsLease() {
        redis.hset(LOCK, "plain-holder:1", "1");
        redis.pexpire(LOCK, 10_000);

        List<Long> refusedRead = read(A, 10_000);
        List<Long> refusedWrite = write(A, 10_000);

        assertThat(refusedRead.get(0)).isZero();
        assertThat(refusedRead.get(1)).isBetween(9_000L, 10_000L);
        assertThat(refusedWrite.get(0)).isZero();
        assertThat(redis.hgetall(LOCK)).isEqualTo(Map.of("plain-holder:1", "1"));
        assertThat(redis.exists(LEASES, WRITERS)).isZero();
    }

    // ---- acquire.lua: the write side ------------------------------------------------------

    @Test
    void aFreeLockIsWrittenWithOneHoldItsLeaseAndANewToken() {
        long token = newToken(write(A, 10_000), 0);

        assertThat(redis.hgetall(LOCK)).containsOnlyKeys("mode", "writer", w(A), w(A) + ":call", w(A) + ":token")
                .containsEntry("mode", "write").containsEntry("writer", w(A)).containsEntry(w(A), "1")
                .containsEntry(w(A) + ":token", Long.toString(token));
        assertThat(leaseLeft(w(A))).isBetween(9_000L, 10_000L);
        assertThat(redis.pttl(LOCK)).isBetween(9_000L, 10_000L);
        assertThat(redis.exists(WRITERS)).isZero();
    }

    @Test
    void theWriterReentersAlsoWhileItReads() {
        long token = write(A, 10_000).get(2);
        read(A, 10_000);

        assertThat(write(A, 10_000)).containsExactly(1L, 2L, token);
        assertThat(writeHolding(A, Long.toString(token))).containsExactly(1L, 3L, token);
    }

    @Test
    void anOwnerThatOnlyReadsIsRefusedTheWriteLockAndNothingChanges() {
        read(A, 10_000);
        read(B, 10_000);
        Map<String, String> before = redis.hgetall(LOCK);

        assertThat(write(A, 10_000)).containsExactly(-2L, 0L);

        assertThat(redis.hgetall(LOCK)).isEqualTo(before);
        assertThat(redis.exists(WRITERS)).as("it does not wait, so it holds no reader back").isZero();
    }

    @Test
    void aWriterWaitsForTheReadersKeepingItsPlaceAndRetriesBeforeTheLastLeaseEndsOrHalfItsPlace() {
        read(A, 5_000);
        read(B, 8_000);

        List<Long> refused = write(C, 10_000);

        assertThat(refused.get(0)).isZero();
        assertThat(refused.get(1)).as("B's lease ends last").isBetween(7_000L, 8_000L);
        assertThat(placeLeft(w(C))).isBetween(PLACE - 1_000, PLACE);
        assertThat(redis.pttl(WRITERS)).isBetween(PLACE - 1_000, PLACE);

        read(A, 60_000);
        assertThat(write(C, 10_000).get(1)).as("half its place, so that it keeps it").isEqualTo(PLACE / 2);
    }

    @Test
    void aWriterWaitsForAnotherWriterAsLongAsItsLease() {
        write(A, 5_000);

        List<Long> refused = write(B, 10_000);

        assertThat(refused.get(0)).isZero();
        assertThat(refused.get(1)).isBetween(4_000L, 5_000L);
        assertThat(redis.hget(LOCK, "writer")).isEqualTo(w(A));
    }

    @Test
    void aWaitingWriterTakesTheFreedLockAndLeavesTheWaitingWriters() {
        long reading = read(A, 10_000).get(2);
        write(B, 10_000);
        release(r(A));

        newToken(write(B, 10_000), reading);

        assertThat(redis.exists(WRITERS)).isZero();
    }

    @Test
    void waitingWritersWhosePlaceRanOutAreClearedByTheNextWaitingWriter() {
        redis.zadd(WRITERS, ENDED, "dead:1:write");
        read(A, 10_000);

        write(B, 10_000);

        assertThat(redis.zrange(WRITERS, 0, -1)).containsExactly(w(B));
    }

    @Test
    void aWriteHoldWhoseLeaseEndedHoldsNothingBack() {
        long writing = write(A, 10_000).get(2);
        redis.zadd(LEASES, ENDED, w(A));

        newToken(read(B, 10_000), writing);
        assertThat(redis.hgetall(LOCK)).doesNotContainKeys("writer", w(A), w(A) + ":token").containsEntry("mode", "read");
        assertThat(write(C, 10_000).get(0)).as("B reads").isZero();
    }

    @Test
    void readAndWriteHoldsTakeTheirTokensFromOneSequence() {
        long a = newToken(read(A, 10_000), 0);
        long b = newToken(read(B, 10_000), a);
        release(r(A));
        release(r(B));
        long writing = newToken(write(C, 10_000), b);
        long own = newToken(read(C, 10_000), writing);
        release(w(C));
        newToken(read(A, 10_000), own);
    }

    @Test
    void aNewHoldTakesRedisClockInMicrosecondsWhenTheCounterIsBehindItAndTheCounterPlusOneWhenAhead() {
        redis.set(COUNTER, "41");
        long before = serverMicros();
        long token = newToken(write(A, 10_000), 41);
        assertThat(token).as("Redis TIME in µs during the call").isBetween(before, serverMicros());
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token));
        release(w(A));

        long ahead = serverMicros() + TimeUnit.HOURS.toMicros(1);
        redis.set(COUNTER, Long.toString(ahead));
        assertThat(read(B, 10_000)).containsExactly(1L, 1L, ahead + 1);
        assertThat(redis.hget(LOCK, r(B) + ":token")).isEqualTo(Long.toString(ahead + 1));
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(ahead + 1));
    }

    // ---- release.lua -----------------------------------------------------------------------

    @Test
    void aReaderLeavingOtherReadersWakesNobodyAndTheKeysFollowTheLatestLeaseLeft() throws Exception {
        BlockingQueue<String> messages = listen();
        read(A, 60_000);
        read(B, 10_000);

        assertThat(release(r(A))).isZero();

        assertThat(redis.hgetall(LOCK)).doesNotContainKeys(r(A), r(A) + ":call", r(A) + ":token");
        assertThat(redis.pttl(LOCK)).as("B's lease is the latest now").isBetween(9_000L, 10_000L);
        assertThat(redis.pttl(LEASES)).isBetween(9_000L, 10_000L);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void theLastReaderLeavingDeletesBothKeysAndWakesOneWaitingWriter() throws Exception {
        BlockingQueue<String> messages = listen();
        read(A, 10_000);
        write(B, 10_000);

        assertThat(release(r(A))).isZero();

        assertThat(redis.exists(LOCK, LEASES)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(CHANNEL + " ''");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void theLastReaderLeavingWithNoWriterWaitingPublishesNothing() throws Exception {
        BlockingQueue<String> messages = listen();
        read(A, 10_000);

        assertThat(release(r(A))).isZero();

        assertThat(redis.exists(LOCK, LEASES, WRITERS)).isZero();
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void theWritersReleaseWakesOneWaitingWriterRatherThanTheReaders() throws Exception {
        BlockingQueue<String> messages = listen();
        write(A, 10_000);
        write(B, 10_000);
        read(C, 10_000);

        assertThat(release(w(A))).isZero();

        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(CHANNEL + " ''");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void theWritersReleaseWithNoWriterWaitingWakesEveryReader() throws Exception {
        BlockingQueue<String> messages = listen();
        write(A, 10_000);
        read(B, 10_000);

        assertThat(release(w(A))).isZero();

        assertThat(redis.exists(LOCK, LEASES)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(READ_CHANNEL + " '*'");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aDowngradeKeepsTheWritersReadAndLetsTheReadersInUnlessWritersWait() throws Exception {
        BlockingQueue<String> messages = listen();
        write(A, 10_000);
        read(A, 60_000);

        assertThat(release(w(A))).isZero();

        assertThat(redis.hgetall(LOCK)).containsEntry("mode", "read").containsEntry(r(A), "1").doesNotContainKey("writer");
        assertThat(redis.pttl(LOCK)).isGreaterThan(59_000L);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(READ_CHANNEL + " '*'");
        assertThat(read(B, 10_000).get(0)).isEqualTo(1L);
    }

    @Test
    void aDowngradeWhileWritersWaitWakesNobody() throws Exception {
        BlockingQueue<String> messages = listen();
        write(A, 10_000);
        read(A, 10_000);
        write(B, 10_000);

        assertThat(release(w(A))).isZero();

        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("the writer waits for A's read, readers behind it")
                .isNull();
        assertThat(release(r(A))).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(CHANNEL + " ''");
    }

    @Test
    void releaseOfAReenteredHoldKeepsItAndPublishesNothing() throws Exception {
        BlockingQueue<String> messages = listen();
        write(A, 10_000);
        write(A, 10_000);

        assertThat(release(w(A))).isEqualTo(1L);

        assertThat(redis.hget(LOCK, w(A))).isEqualTo("1");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void releaseOfAHoldThatIsNotThereOrWhoseLeaseEndedAnswersNil() {
        assertThat(release(r(A))).isNull();
        read(A, 10_000);
        assertThat(release(w(A))).as("A reads, it does not write").isNull();
        assertThat(release(r(B))).isNull();
        redis.zadd(LEASES, ENDED, r(A));
        assertThat(release(r(A))).as("its lease ended").isNull();
    }

    @Test
    void aReleaseSentAgainAfterItRanReleasesNothingMore() {
        read(A, 10_000);
        read(A, 10_000);
        read(A, 10_000);

        assertThat(release(r(A), "lost-release", "release")).isEqualTo(2L);
        assertThat(release(r(A), "lost-release", "release")).isEqualTo(2L);

        assertThat(redis.hget(LOCK, r(A))).isEqualTo("2");
    }

    @Test
    void undoTakesBackExactlyTheGrantOfItsCallAndOnlyOnce() {
        write(A, 10_000);
        acquire("write", w(A), r(A), 10_000, "lost-grant", "");

        assertThat(release(w(A), "lost-grant", "undo")).isEqualTo(1L);
        assertThat(release(w(A), "lost-grant", "undo")).isNull();
        assertThat(release(w(A), "grant-that-never-ran", "undo")).isNull();

        assertThat(redis.hget(LOCK, w(A))).isEqualTo("1");
    }

    @Test
    void endWithTheHoldsTokenEndsEveryLevelOfThatHoldOnlyAndWakesTheNext() throws Exception {
        BlockingQueue<String> messages = listen();
        long token = write(A, 10_000).get(2);
        write(A, 10_000);
        read(A, 10_000);

        assertThat(end(w(A), token + 1)).as("a stale token").isNull();
        assertThat(end(w(A), token)).isZero();

        assertThat(redis.hgetall(LOCK)).doesNotContainKeys(w(A), "writer").containsEntry(r(A), "1");
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(READ_CHANNEL + " '*'");
    }

    @Test
    void forcingTheWriteSideEndsTheWriterOnly() throws Exception {
        BlockingQueue<String> messages = listen();
        write(A, 10_000);
        read(A, 10_000);

        assertThat(force("write")).isEqualTo(1L);
        assertThat(force("write")).isZero();

        assertThat(redis.hgetall(LOCK)).doesNotContainKeys(w(A), "writer").containsEntry(r(A), "1");
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(READ_CHANNEL + " '*'");
    }

    @Test
    void forcingTheReadSideEndsEveryReaderAndWakesAWaitingWriter() throws Exception {
        BlockingQueue<String> messages = listen();
        read(A, 10_000);
        read(B, 10_000);
        write(C, 10_000);

        assertThat(force("read")).isEqualTo(1L);
        assertThat(force("read")).isZero();

        assertThat(redis.exists(LOCK, LEASES)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(CHANNEL + " ''");
        assertThat(write(C, 10_000).get(0)).isEqualTo(1L);
    }

    @Test
    void forcingTheReadSideBesideAWriterEndsTheWritersOwnReadOnly() {
        write(A, 10_000);
        assertThat(force("read")).as("nobody reads").isZero();
        read(A, 10_000);

        assertThat(force("read")).isEqualTo(1L);

        assertThat(redis.hgetall(LOCK)).doesNotContainKey(r(A)).containsEntry("writer", w(A));
    }

    // ---- abandon.lua -----------------------------------------------------------------------

    @Test
    void theLastWaitingWriterGivingUpWakesTheReadersItHeldBack() throws Exception {
        read(A, 10_000);
        write(B, 10_000);
        write(C, 10_000);
        BlockingQueue<String> messages = listen();

        assertThat(abandon(w(B))).isEqualTo(1L);
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).as("C still waits").isNull();
        assertThat(abandon(w(C))).isEqualTo(1L);
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo(READ_CHANNEL + " '*'");
        assertThat(abandon(w(C))).as("a second time").isZero();

        assertThat(redis.exists(WRITERS)).isZero();
        assertThat(read(B, 10_000).get(0)).isEqualTo(1L);
    }

    @Test
    void aWaitingWriterGivingUpWhileAnotherWritesWakesNobody() throws Exception {
        write(A, 10_000);
        write(B, 10_000);
        BlockingQueue<String> messages = listen();

        assertThat(abandon(w(B))).isEqualTo(1L);

        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    // ---- inspect.lua -----------------------------------------------------------------------

    @Test
    void inspectAnswersForOneSide() {
        assertThat(inspect("read", r(A))).containsExactly(0L, 0L, 0L);
        assertThat(inspect("write", w(A))).containsExactly(0L, 0L, 0L);

        write(A, 5_000);
        read(A, 20_000);
        read(A, 20_000);
        List<Long> reading = inspect("read", r(A));
        List<Long> writing = inspect("write", w(A));

        assertThat(reading).startsWith(1L).endsWith(2L);
        assertThat(reading.get(1)).as("the latest read lease").isBetween(19_000L, 20_000L);
        assertThat(writing).startsWith(1L).endsWith(1L);
        assertThat(writing.get(1)).as("the write lease").isBetween(4_000L, 5_000L);
        assertThat(inspect("read", r(B))).as("B holds nothing").endsWith(0L);

        redis.zadd(LEASES, ENDED, w(A));
        assertThat(inspect("write", w(A))).as("a lease that ended holds nothing").containsExactly(0L, 0L, 0L);
        assertThat(inspect("read", "")).startsWith(1L);
    }

    @Test
    void theReadSideIsNotLockedByAWriterAlone() {
        write(A, 60_000);
        read(A, 5_000);

        assertThat(inspect("read", "").get(1)).as("the read lease, not the longer write lease").isBetween(4_000L, 5_000L);
        release(r(A));
        assertThat(inspect("read", "")).containsExactly(0L, 0L, 0L);
    }

    // ---- renew.lua -------------------------------------------------------------------------

    @Test
    void renewExtendsLiveHoldsEachOnItsOwnAndReportsTheLostOnes() {
        read(A, 1_000);
        read(B, 1_000);
        read(C, 1_000);
        redis.zadd(LEASES, ENDED, r(B));
        redis.hdel(LOCK, r(C)); // as if force-unlocked meanwhile

        List<Object> renewed = renew(30_000, r(A), r(B), r(C), r("nobody"));

        assertThat(renewed).containsExactly(1L, 0L, 0L, 0L);
        assertThat(leaseLeft(r(A))).isGreaterThan(29_000L);
        assertThat(leaseLeft(r(B))).as("an ended lease is not brought back").isLessThanOrEqualTo(0L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(29_000L);
        assertThat(redis.pttl(LEASES)).isGreaterThan(29_000L);
    }

    @Test
    void renewNeverShortensALongerLease() {
        write(A, 60_000);

        assertThat(renew(1_000, w(A))).containsExactly(1L);

        assertThat(leaseLeft(w(A))).isGreaterThan(59_000L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(59_000L);
    }

    @Test
    void renewReportsKeysOfTheWrongTypeAsLostForThatHoldOnly() {
        read(A, 1_000);
        redis.set("now-a-string", "x");

        List<Object> renewed = redis.eval(script("renew.lua"), ScriptOutputType.MULTI,
                new String[] {"now-a-string", "now-a-string", LOCK, LEASES}, "30000", r(A), r(A));

        assertThat(renewed).containsExactly(0L, 1L);
    }

    // ---- machinery -------------------------------------------------------------------------

    // ---- a client's shared read hold: a block of tokens, a fresh hold, reserve.lua ----------

    @Test
    void aNewHoldWithABlockTakesTheFirstTokenAndLeavesTheCounterAtTheLast() {
        long token = newToken(acquireBlock("read", r(A), r(A) + "-unused-sibling", "", 65), 0);

        assertThat(Long.parseLong(redis.get(COUNTER))).isEqualTo(token + 64);
        release(r(A));
        assertThat(newToken(write(B, 10_000), token + 64)).as("the writer's token is above the whole block")
                .isGreaterThan(token + 64);
    }

    @Test
    void aBlockTheCounterHasNoRoomForIsRefusedBeforeAnythingIsWritten() {
        redis.set(COUNTER, Long.toString((1L << 53) - 10));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> acquireBlock("read", r(A), w(A), "", 65))
                .hasMessageContaining("leaves room for 65 more below 2^53");
        assertThat(redis.exists(LOCK, LEASES)).isZero();
    }

    @Test
    void aFreshHoldReplacesTheCallersHoldThatRedisStillHasWithANewToken() {
        long old = newToken(read(A, 10_000), 0);

        long fresh = newToken(acquireBlock("read", r(A), w(A), "fresh", 1), old);

        assertThat(redis.hget(LOCK, r(A))).as("one level: a new hold, not a re-entry").isEqualTo("1");
        assertThat(redis.hget(LOCK, r(A) + ":token")).isEqualTo(Long.toString(fresh));
    }

    @Test
    void aFreshReaderWaitsBehindAWaitingWriterAndItsOldHoldIsGone() {
        read(A, 10_000);
        read(C, 10_000);
        assertThat(write(B, 10_000).get(0)).isZero();

        assertThat(acquireBlock("read", r(A), w(A), "fresh", 1).get(0)).isZero();
        assertThat(redis.zscore(LEASES, r(A))).isNull();
    }

    @Test
    void reserveOfAHeldHoldWithNoWriterWaitingReservesTheNextBlock() {
        long token = read(A, 10_000).get(2);

        List<Long> reserved = reserve(r(A), token, 65);

        assertThat(reserved).hasSize(3).startsWith(1L, 0L);
        assertThat(reserved.get(2)).isGreaterThan(token);
        assertThat(Long.parseLong(redis.get(COUNTER))).isEqualTo(reserved.get(2) + 64);
        assertThat(newToken(read(B, 10_000), reserved.get(2) + 64)).isGreaterThan(reserved.get(2) + 64);
    }

    @Test
    void reserveWhileAWriterWaitsSaysSoAndReservesNothing() {
        long token = read(A, 10_000).get(2);
        write(B, 10_000);
        String counter = redis.get(COUNTER);

        assertThat(reserve(r(A), token, 65)).containsExactly(1L, 1L, 0L);
        assertThat(redis.get(COUNTER)).isEqualTo(counter);
    }

    @Test
    void reserveOfAHoldThatIsGoneOrIsAnotherHoldAnswersGone() {
        long token = read(A, 10_000).get(2);

        assertThat(reserve(r(A), token + 1, 65)).as("another hold of that field").containsExactly(0L, 0L, 0L);
        assertThat(reserve(r(B), token, 65)).as("no hold").containsExactly(0L, 0L, 0L);
        redis.zadd(LEASES, ENDED, r(A));
        assertThat(reserve(r(A), token, 65)).as("its lease ended").containsExactly(0L, 0L, 0L);
    }

    @Test
    void aWaitingWriterWhosePlaceRanOutIsNoWaitingWriterForReserve() {
        long token = read(A, 10_000).get(2);
        redis.zadd(WRITERS, ENDED, w(B));

        assertThat(reserve(r(A), token, 65).subList(0, 2)).containsExactly(1L, 0L);
    }

    /** @return acquire.lua's answer with a token block (ARGV[8]) */
    private static List<Long> acquireBlock(String side, String field, String sibling, String held, int block) {
        List<Object> reply = redis.eval(script("acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, LEASES, WRITERS, COUNTER}, side, "10000", field, sibling, "call-" + ++calls, held,
                Long.toString(PLACE), Integer.toString(block));
        return reply.stream().map(Long.class::cast).toList();
    }

    /** @return reserve.lua's answer */
    private static List<Long> reserve(String field, long token, int block) {
        List<Object> reply = redis.eval(script("reserve.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, LEASES, WRITERS, COUNTER}, field, Long.toString(token), Integer.toString(block));
        return reply.stream().map(Long.class::cast).toList();
    }

    private static String r(String owner) {
        return owner + ":read";
    }

    private static String w(String owner) {
        return owner + ":write";
    }

    /** Checks a grant of a new hold, {1, 1, token} with a token above {@code above}; @return the token */
    private static long newToken(List<Long> granted, long above) {
        assertThat(granted).hasSize(3).startsWith(1L, 1L);
        assertThat(granted.get(2)).as("the new hold's token").isGreaterThan(above);
        return granted.get(2);
    }

    /** @return Redis's clock in microseconds, as TIME answers it to the scripts */
    private static long serverMicros() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    private static List<Long> read(String owner, long leaseMillis) {
        return readHolding(owner, "", leaseMillis);
    }

    private static List<Long> readHolding(String owner, String held) {
        return readHolding(owner, held, 10_000);
    }

    private static List<Long> readHolding(String owner, String held, long leaseMillis) {
        return acquire("read", r(owner), w(owner), leaseMillis, "call-" + ++calls, held);
    }

    private static List<Long> write(String owner, long leaseMillis) {
        return acquire("write", w(owner), r(owner), leaseMillis, "call-" + ++calls, "");
    }

    private static List<Long> writeHolding(String owner, String held) {
        return acquire("write", w(owner), r(owner), 10_000, "call-" + ++calls, held);
    }

    /** @return acquire.lua's answer for one side */
    private static List<Long> acquire(String side, String field, String sibling, long leaseMillis, String call,
                                      String held) {
        List<Object> reply = redis.eval(script("acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, LEASES, WRITERS, COUNTER}, side, Long.toString(leaseMillis), field, sibling, call, held,
                Long.toString(PLACE));
        return reply.stream().map(Long.class::cast).toList();
    }

    private static Long release(String field) {
        return release(field, "call-" + ++calls, "release");
    }

    private static Long release(String field, String call, String mode) {
        return redis.eval(script("release.lua"), ScriptOutputType.INTEGER, ALL_KEYS, field, "publish", call, mode, "");
    }

    private static Long end(String field, long token) {
        return redis.eval(script("release.lua"), ScriptOutputType.INTEGER, ALL_KEYS, field, "publish",
                "call-" + ++calls, "end", Long.toString(token));
    }

    private static Long force(String side) {
        return redis.eval(script("release.lua"), ScriptOutputType.INTEGER, ALL_KEYS, side, "publish", "", "force", "");
    }

    private static Long abandon(String writer) {
        return redis.eval(script("abandon.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, LEASES, WRITERS, READ_CHANNEL}, writer, "publish");
    }

    private static List<Long> inspect(String side, String field) {
        List<Object> reply = redis.eval(script("inspect.lua"), ScriptOutputType.MULTI, new String[] {LOCK, LEASES}, side, field);
        return reply.stream().map(Long.class::cast).toList();
    }

    private static List<Object> renew(long leaseMillis, String... fields) {
        String[] keys = new String[fields.length * 2];
        String[] args = new String[fields.length + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < fields.length; i++) {
            keys[2 * i] = LOCK;
            keys[2 * i + 1] = LEASES;
            args[i + 1] = fields[i];
        }
        return redis.eval(script("renew.lua"), ScriptOutputType.MULTI, keys, args);
    }

    /** @return the milliseconds left of a hold's lease by the leases set, negative once it ended */
    private static long leaseLeft(String field) {
        return (long) (redis.zscore(LEASES, field) - nowMillis());
    }

    private static long placeLeft(String writer) {
        return (long) (redis.zscore(WRITERS, writer) - nowMillis());
    }

    private static long nowMillis() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /** @return messages on both channels, as {@code <channel> '<message>'} */
    private BlockingQueue<String> listen() {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        pubSub = client.connectPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.add(channel + " '" + message + "'");
            }
        });
        pubSub.sync().subscribe(CHANNEL, READ_CHANNEL);
        return messages;
    }

    private static String script(String name) {
        return ScriptsOnRedis.script("rw/" + name);
    }
}
