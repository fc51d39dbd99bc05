package io.latchkey.fair;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.scripts.ScriptsOnRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One fair lock used by clients of this version and of 0.2, which has no grant at the release
 * (its scripts, as 0.2 shipped them, are kept under {@code io/latchkey/internal/fair/v0_2}): each client
 * runs its own scripts on the same keys, called here directly against a real Redis. A grant made
 * to a 0.2 waiter is taken by its next try; a 0.2 release wakes a waiter of this version, whose
 * try takes the lock; a grant not taken excludes a 0.2 try as any hold does, and lasts no longer
 * than the waiter's place. So mixing the versions is safe: it costs the 0.2 clients' hand-offs
 * what they cost before.
 */
class FairLockMixedVersionsTest {

    private static final String LOCK = "fair-mixed-lock";
    private static final String QUEUE = FairLockRedis.queueKey(LOCK);
    private static final String TIMEOUTS = FairLockRedis.timeoutsKey(LOCK);
    private static final String CHANNEL = FairLockRedis.channelOf(LOCK);
    private static final String SECRETS = FairLockRedis.secretsKey(LOCK);
    private static final String COUNTER = LockKeys.of(LOCK).fenceCounter();
    private static final String HOLDER = "client-new-h:1";
    private static final String NEW = "client-new-w:2";
    private static final String OLD = "client-old-w:3";
    private static final String OLD_HOLDER = "client-old-h:4";
    private static final long LEASE = 10_000;
    private static final long PLACE = 60_000;

    private static ScriptsOnRedis scripts;
    private static RedisCommands<String, String> redis;
    private static int calls;

    @BeforeAll
    static void startRedis() {
        scripts = ScriptsOnRedis.start();
        redis = scripts.redis();
        scripts.record((channel, message) -> message, CHANNEL);
    }

    @AfterAll
    static void stopRedis() {
        scripts.close();
    }

    @BeforeEach
    void emptyRedis() {
        redis.flushall();
        scripts.published().clear();
    }

    @Test
    void aWaiterOfAClientWithoutTheGrantIsWokenByNameAndTakesItsGrantByItsNextTry() throws Exception {
        long holderToken = (Long) acquire(HOLDER, "").get(2);
        assertThat(acquireAsOf02(OLD, PLACE)).element(0).isEqualTo(0L);
        assertThat(acquire(NEW, "new-secret")).element(0).isEqualTo(0L);
        scripts.published().clear();

        assertThat(release(HOLDER)).isZero();

        assertThat(redis.hget(LOCK, OLD)).as("granted, not taken").isEqualTo("0");
        scripts.awaitPublished(1);
        assertThat(scripts.published()).as("its name alone: it left no secret, and 0.2 tries on any wake-up")
                .containsExactly(OLD);
        assertThat(acquireAsOf02(OLD, PLACE)).as("0.2's try re-enters its own field: count 0 to 1").containsExactly(1L, 1L);
        assertThat(Long.parseLong(redis.hget(LOCK, OLD + ":token"))).isGreaterThan(holderToken);
        assertThat(redis.pttl(LOCK)).as("at least the 0.2 client's lease, which is all it counts on")
                .isGreaterThanOrEqualTo(LEASE - 1_000);
        assertThat(acquire(NEW, "newer-secret")).as("the holder excludes the next in line").element(0).isEqualTo(0L);
        long oldToken = Long.parseLong(redis.hget(LOCK, OLD + ":token"));

        scripts.published().clear();
        assertThat(releaseAsOf02(OLD)).isZero();

        scripts.awaitPublished(1);
        assertThat(scripts.published()).as("0.2's release wakes the next in line by name").containsExactly(NEW);
        List<Object> taken = acquire(NEW, "newest-secret");
        assertThat(taken).element(0).isEqualTo(1L);
        assertThat((Long) taken.get(2)).isGreaterThan(oldToken);
        assertThat(redis.exists(QUEUE, TIMEOUTS, SECRETS)).as("the line's keys, its secret with them, are gone").isZero();
    }

    @Test
    void aGrantNotTakenExcludesATryOfAClientWithoutTheGrant() {
        acquire(HOLDER, "");
        acquire(NEW, "new-secret");
        assertThat(acquireAsOf02(OLD, PLACE)).element(0).isEqualTo(0L);
        release(HOLDER);
        assertThat(redis.hget(LOCK, NEW)).isEqualTo("0");

        assertThat(acquireAsOf02(OLD, PLACE)).as("queued behind the grant, as behind any hold").element(0).isEqualTo(0L);

        assertThat(redis.lrange(QUEUE, 0, -1)).containsExactly(OLD);
    }

    @Test
    void aGrantThatAWaiterWithoutTheGrantGaveUpOnLastsOnlyUntilItsPlaceRunsOut() throws Exception {
        acquire(HOLDER, "");
        acquireAsOf02(OLD, 400);
        acquire(NEW, "new-secret");
        release(HOLDER);
        assertThat(redis.hget(LOCK, OLD)).isEqualTo("0");

        assertThat(abandonAsOf02(OLD)).as("0.2 leaves the line only: it knows of no grant").isZero();
        assertThat(redis.pttl(LOCK)).isBetween(1L, 400L);
        Thread.sleep(500); // a real TTL must run out: the 0.2 waiter's place, 400 ms

        assertThat(redis.exists(LOCK)).isZero();
        assertThat(acquire(NEW, "newer-secret")).as("the next in line takes the free lock at its next try").element(0).isEqualTo(1L);
    }

    @Test
    void aWaiterOfThisVersionWokenByAReleaseWithoutTheGrantTakesTheFreeLockByItsTry() throws Exception {
        assertThat(acquireAsOf02(OLD_HOLDER, PLACE)).containsExactly(1L, 1L);
        assertThat(acquire(NEW, "new-secret")).element(0).isEqualTo(0L);
        scripts.published().clear();

        assertThat(releaseAsOf02(OLD_HOLDER)).isZero();

        scripts.awaitPublished(1);
        assertThat(scripts.published()).as("no word: a wake-up, which this version tries on").containsExactly(NEW);
        assertThat(acquire(NEW, "newer-secret")).element(0).isEqualTo(1L);
        assertThat(redis.exists(SECRETS)).as("taking the lock from the head of the line deletes its secret").isZero();
        assertThat(redis.exists(QUEUE)).isZero();
    }

    // ---- this version's scripts ------------------------------------------------------------

    private static List<Object> acquire(String caller, String secret) {
        return redis.eval(ScriptsOnRedis.script("fair/acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, QUEUE, TIMEOUTS, CHANNEL, COUNTER, SECRETS},
                Long.toString(LEASE), caller, Long.toString(PLACE), "publish", "call-" + ++calls, "", secret);
    }

    private static Long release(String owner) {
        return redis.eval(ScriptsOnRedis.script("fair/release.lua"), ScriptOutputType.INTEGER,
                new String[] {LOCK, QUEUE, CHANNEL, TIMEOUTS, COUNTER, SECRETS}, owner, "publish", "call-" + ++calls, "release");
    }

    // ---- 0.2's scripts ---------------------------------------------------------------------

    private static List<Object> acquireAsOf02(String caller, long placeMillis) {
        return redis.eval(scriptOf02("acquire.lua"), ScriptOutputType.MULTI, new String[] {LOCK, QUEUE, TIMEOUTS, CHANNEL},
                Long.toString(LEASE), caller, Long.toString(placeMillis), "publish", "call-" + ++calls);
    }

    private static Long releaseAsOf02(String owner) {
        return redis.eval(scriptOf02("release.lua"), ScriptOutputType.INTEGER, new String[] {LOCK, QUEUE, CHANNEL},
                owner, "publish", "call-" + ++calls, "release");
    }

    private static Long abandonAsOf02(String waiter) {
        return redis.eval(scriptOf02("abandon.lua"), ScriptOutputType.INTEGER, new String[] {QUEUE, TIMEOUTS, CHANNEL},
                waiter, "publish");
    }

    /** @return a script of the fair lock as 0.2 shipped it */
    private static String scriptOf02(String fileName) {
        return ScriptsOnRedis.script("fair/v0_2/" + fileName);
    }
}
