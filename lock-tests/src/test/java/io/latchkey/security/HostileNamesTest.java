package io.latchkey.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.RedisInspector;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Lock names are user input: a name must not stand for one of the library's own keys, forge a
 * log line, bloat every message, or share a Redis key with another name. Every kind refuses such
 * names before anything reaches Redis (issue 27, findings 1 and 12).
 */
class HostileNamesTest {

    private static RedisServer redis;
    private static RedisInspector inspector;
    private LockClient client;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        inspector = new RedisInspector(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (inspector != null) {
            inspector.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void connect() {
        inspector.commands().flushall();
        client = LockClient.create(LockConfig.builder().address(redis.uri()).watchdogTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    /** Every way a client makes a lock object from a name. */
    private List<Function<String, Object>> kinds() {
        return List.of(client::getLock, client::getFairLock, client::getReadWriteLock, name -> client.getSemaphore(name, 2));
    }

    @Test
    void aNameInTheLibrarysOwnKeySpaceIsRefusedByEveryKindAndWritesNothing() {
        // Before: a lock named as another lock's waiting mark, once held, made lock("orders:42")
        // fail with WRONGTYPE after its script had written the hold, leaving it with no expiry.
        for (String name : List.of("latchkey:{orders:42}:waiting", "latchkey:{orders:42}:turn",
                "latchkey:{jobs}:permit-limit", "latchkey:fence:{0}", "latchkey:")) {
            for (Function<String, Object> kind : kinds()) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> kind.apply(name));
                assertTrue(refused.getMessage().contains("reserved"), refused.getMessage());
            }
        }
        assertEquals(0L, inspector.commands().dbsize(), "nothing reached Redis");

        DistributedLock orders = client.getLock("orders:42");
        try (LockHold hold = orders.acquire()) {
            assertTrue(hold.isValid());
            assertTrue(inspector.commands().pttl("orders:42") > 0, "the hold expires");
        }
        assertFalse(orders.isLocked());
    }

    @Test
    void aHugeNameIsRefusedWithAShortMessage() {
        String huge = "x".repeat(1 << 20);
        for (Function<String, Object> kind : kinds()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> kind.apply(huge));
            assertTrue(refused.getMessage().contains("1048576"), refused.getMessage());
            assertTrue(refused.getMessage().length() < 300, "the message quotes only the start of the name");
        }
        String longest = "y".repeat(1024);
        try (LockHold hold = client.getLock(longest).acquire()) {
            assertTrue(hold.isValid() && client.getLock(longest).isLocked());
        }
    }

    @Test
    void controlCharactersAreRefusedAndNeverReachAMessageRaw() {
        for (String name : List.of("order\n2026-11-26 WARN forged line", "tab\there", "bell\u0007", "nul\u0000",
                "ls\u2028", "del\u007f")) {
            for (Function<String, Object> kind : kinds()) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> kind.apply(name));
                assertTrue(refused.getMessage().chars().noneMatch(c -> Character.isISOControl(c) || c == '\u2028'),
                        "escaped in the message: " + refused.getMessage());
            }
        }
        assertEquals(0L, inspector.commands().dbsize(), "nothing reached Redis");
    }

    @Test
    void aLoneSurrogateIsRefusedSoNoTwoNamesShareAKey() {
        // Before: "a\uD800" reached Redis as "a?", the key of another lock, while the client took
        // them for two locks; a thread holding one deadlocked asking for the other.
        assertThrows(IllegalArgumentException.class, () -> client.getLock("a\uD800"));
        assertThrows(IllegalArgumentException.class, () -> client.getLock("\uDC00b"));
        assertThrows(IllegalArgumentException.class, () -> client.getFairLock("x\uDBFF\uDBFF"));

        String padlock = "vault-\uD83D\uDD12"; // a well-formed pair: U+1F512
        try (LockHold hold = client.getLock(padlock).acquire()) {
            assertTrue(hold.isValid());
            assertEquals(1L, inspector.commands().exists(padlock), "stored under its own UTF-8 key");
            assertFalse(client.getLock("vault-?").isLocked());
        }
    }

    @Test
    void nullIsANullPointerExceptionAndEmptyAnIllegalArgument() {
        for (Function<String, Object> kind : kinds()) {
            assertThrows(NullPointerException.class, () -> kind.apply(null));
            Executable empty = () -> kind.apply("");
            assertThrows(IllegalArgumentException.class, empty);
        }
    }
}
