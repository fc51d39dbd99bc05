package io.latchkey.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RedLock's raise-fence.lua called directly against a real Redis: it raises one master's
 * fencing counter to at least a token, and the acquire script's next new hold on that master
 * then takes a greater one.
 */
class RaiseFenceScriptTest {

    private static final String LOCK = "raise-fence-lock";
    private static final String COUNTER = LockKeys.of(LOCK).fenceCounter();

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
    void raisesALowerCounterToTheTokenAndAnswersIt() {
        redis.set(COUNTER, "3");

        assertThat(raise(7)).isEqualTo(7L);

        assertThat(redis.get(COUNTER)).isEqualTo("7");
    }

    @Test
    void leavesAHigherOrEqualCounterAloneAndAnswersItsValue() {
        redis.set(COUNTER, "9");
        assertThat(raise(7)).isEqualTo(9L);
        assertThat(redis.get(COUNTER)).isEqualTo("9");

        assertThat(raise(9)).isEqualTo(9L);
        assertThat(redis.get(COUNTER)).isEqualTo("9");
    }

    @Test
    void createsAMissingCounterAtTheTokenWithoutExpiry() {
        assertThat(raise(7)).isEqualTo(7L);

        assertThat(redis.get(COUNTER)).isEqualTo("7");
        assertThat(redis.pttl(COUNTER)).isEqualTo(-1L);
    }

    /**
     * A raise to a token ahead of Redis's clock (another master's clock may be ahead of this one's):
     * the next hold follows the counter. The round value is written as digits, never as "4.0e+15",
     * which INCRBY could not read.
     */
    @Test
    void theNextNewHoldAfterARaiseAheadOfTheClockTakesTheRaisedTokenPlusOne() {
        long token = 4_000_000_000_000_000L;
        redis.set(COUNTER, "12");
        raise(token);
        assertThat(redis.get(COUNTER)).isEqualTo("4000000000000000");

        List<Object> granted = redis.eval(script("/io/latchkey/internal/lock/acquire.lua"), ScriptOutputType.MULTI,
                new String[] {LOCK, COUNTER}, "10000", "client-a:1", "call-1", "fresh");

        assertThat(granted).containsExactly(1L, 1L, token + 1);
        assertThat(redis.get(COUNTER)).isEqualTo(Long.toString(token + 1));
    }

    @Test
    void aTokenThatIsNoWholeNumberBelowTwoToTheFiftyThreeIsRefusedAndChangesNothing() {
        redis.set(COUNTER, "12");
        for (String token : new String[] {"0", "-3", "1e3", "7.5", "007", "9007199254740992", "x"}) {
            assertThatThrownBy(() -> redis.eval(script("/io/latchkey/redlock/internal/raise-fence.lua"),
                    ScriptOutputType.INTEGER, new String[] {COUNTER}, token))
                    .as(token).hasMessageContaining("a token must be a whole number from 1 to 2^53 - 1");
        }
        assertThat(redis.get(COUNTER)).isEqualTo("12");
    }

    private static Long raise(long token) {
        return redis.eval(script("/io/latchkey/redlock/internal/raise-fence.lua"), ScriptOutputType.INTEGER,
                new String[] {COUNTER}, Long.toString(token));
    }

    private static String script(String path) {
        try (InputStream in = RaiseFenceScriptTest.class.getResourceAsStream(path)) {
            assertThat(in).as("script resource %s", path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
