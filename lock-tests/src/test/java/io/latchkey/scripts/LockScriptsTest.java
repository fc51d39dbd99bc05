package io.latchkey.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
    private static final String OWNER = "client-a:1";
    private static final String OTHER = "client-b:2";

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

    @Test
    void acquireOnAFreeLockTakesOneHoldWithTheLease() {
        assertThat(acquire(OWNER, 10_000)).isNull();

        assertThat(redis.hgetall(LOCK)).containsOnlyKeys(OWNER, OWNER + ":call").containsEntry(OWNER, "1");
        assertThat(redis.pttl(LOCK)).isBetween(9_000L, 10_000L);
    }

    @Test
    void acquireByTheOwnerAgainCountsTheReentryAndResetsTheLease() {
        acquire(OWNER, 1_000);

        assertThat(acquire(OWNER, 10_000)).isNull();

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("2");
        assertThat(redis.pttl(LOCK)).isGreaterThan(9_000L);
    }

    @Test
    void reentryWithAShorterLeaseNeverShortensTheHold() {
        acquire(OWNER, 10_000);

        assertThat(acquire(OWNER, 300)).isNull();

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("2");
        assertThat(redis.pttl(LOCK)).as("the outer hold's lease, not the re-entry's 300 ms").isGreaterThan(9_000L);
    }

    @Test
    void undoTakesBackExactlyTheGrantOfItsCallAndOnlyOnce() {
        acquire(OWNER, 10_000);
        acquire(OWNER, 10_000, "lost-grant");

        assertThat(release(OWNER, "lost-grant", "undo")).isEqualTo(1L);
        assertThat(release(OWNER, "lost-grant", "undo")).as("a second undo of the same call").isNull();

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("1");
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
    void acquireOfAHeldLockAnswersTheHoldersRemainingLeaseAndChangesNothing() {
        acquire(OWNER, 10_000);

        Long remaining = acquire(OTHER, 30_000);

        assertThat(remaining).isBetween(9_000L, 10_000L);
        assertThat(redis.hgetall(LOCK)).containsOnlyKeys(OWNER, OWNER + ":call");
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
        acquire(OWNER, 10_000);
        acquire(OWNER, 10_000);

        assertThat(release(OWNER)).isEqualTo(1L);

        assertThat(redis.hget(LOCK, OWNER)).isEqualTo("1");
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
    void forceReleaseDeletesWhoeverHoldsItAndSaysWhetherItExisted() throws Exception {
        BlockingQueue<String> messages = listen();
        acquire(OWNER, 10_000);

        assertThat(forceRelease()).isEqualTo(1L);
        assertThat(forceRelease()).isZero();

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(messages.poll(2, TimeUnit.SECONDS)).isEqualTo("");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void renewResetsTheLeaseOfHoldsThatExistAndReportsTheLostOnes() {
        acquire(OWNER, 1_000);
        redis.hset("other-lock", OTHER, "1");
        redis.pexpire("other-lock", 1_000);

        List<Object> renewed = redis.eval(script("internal/watchdog/renew.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, "other-lock", "gone-lock"}, "30000", OWNER, OWNER, OWNER);

        assertThat(renewed).containsExactly(1L, 0L, 0L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(29_000L);
        assertThat(redis.pttl("other-lock")).isLessThanOrEqualTo(1_000L);
        assertThat(redis.exists("gone-lock")).isZero();
    }

    @Test
    void renewNeverShortensALongerLease() {
        acquire(OWNER, 60_000);

        List<Object> renewed = redis.eval(script("internal/watchdog/renew.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK}, "1000", OWNER);

        assertThat(renewed).containsExactly(1L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(59_000L);
    }

    @Test
    void renewReportsAKeyOfTheWrongTypeAsLostForThatHoldOnlyAndRenewsTheRest() {
        acquire(OWNER, 1_000);
        redis.set("now-a-string", "x");

        List<Object> renewed = redis.eval(script("internal/watchdog/renew.lua"), ScriptOutputType.MULTI,
                new String[] {"now-a-string", LOCK}, "30000", OWNER, OWNER);

        assertThat(renewed).containsExactly(0L, 1L);
        assertThat(redis.pttl(LOCK)).isGreaterThan(29_000L);
        assertThat(redis.get("now-a-string")).isEqualTo("x");
    }

    private static int calls;

    /** @return null if granted, else the holder's remaining lease */
    private static Long acquire(String owner, long leaseMillis) {
        return acquire(owner, leaseMillis, "call-" + ++calls);
    }

    private static Long acquire(String owner, long leaseMillis, String call) {
        List<Object> reply = redis.eval(script("internal/lock/acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK}, Long.toString(leaseMillis), owner, call);
        return (Long) reply.get(0) == 1L ? null : (Long) reply.get(1);
    }

    private static Long release(String owner) {
        return release(owner, "call-" + ++calls, "release");
    }

    private static Long release(String owner, String call, String mode) {
        return redis.eval(script("internal/lock/release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, CHANNEL}, owner, "publish", call, mode);
    }

    private static Long forceRelease() {
        return redis.eval(script("internal/lock/force-release.lua"), ScriptOutputType.INTEGER,
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
        try (InputStream in = LockScriptsTest.class.getResourceAsStream("/io/latchkey/" + path)) {
            assertThat(in).as("script resource %s", path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
