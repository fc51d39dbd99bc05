package io.latchkey.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.latchkey.testing.RedisServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The checker's scripts, called directly against a real Redis: what each counts as a violation. */
class CheckerTest {

    private static final String LOCK = "lock-a";

    private static RedisServer redis;
    private static Checker checker;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        checker = new Checker(redis.uri());
    }

    @AfterAll
    static void stop() {
        if (checker != null) {
            checker.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void clear() {
        checker.clear(List.of(LOCK));
        checker.startFault("T");
    }

    @Test
    void holdsOneAfterAnotherCountNoViolation() {
        assertEquals(new Checker.Entry(0, 1), checker.enter(LOCK, "w1:0:0", 5));
        assertEquals(1, checker.write(LOCK, "w1:0:0", 5));
        checker.exit(LOCK, "w1:0:0");
        assertEquals(new Checker.Entry(0, 1), checker.enter(LOCK, "w2:0:0", 6));

        assertEquals(Map.of("T:acquisitions", "2"), withoutGap(checker.counters()));
    }

    @Test
    void anEntryWhileAnotherHolderIsInsideIsAnOverlapAndTheStaleWriteIsRefused() {
        checker.enter(LOCK, "w1:0:0", 5);
        assertEquals(new Checker.Entry(1, 1), checker.enter(LOCK, "w2:0:0", 6));

        assertEquals(0, checker.write(LOCK, "w1:0:0", 5), "the older token, after the newer wrote");
        Map<String, String> counters = withoutGap(checker.counters());
        assertEquals("1", counters.get("T:overlaps"));
        assertEquals("1", counters.get("T:refused"));
    }

    @Test
    void aTokenHandedOutTwiceIsAStaleWriteAccepted() {
        checker.enter(LOCK, "w1:0:0", 7);
        checker.exit(LOCK, "w1:0:0");

        assertEquals(new Checker.Entry(0, 2), checker.enter(LOCK, "w2:0:0", 7));
        assertEquals("1", checker.counters().get("T:stale_accepted"));
    }

    /**
     * Tokens from Redis's clock are around 1.8e15 and at most 2^53 - 1 (the lock's scripts refuse
     * more): Lua's numbers are doubles, exact up to 2^53, so tokens one apart stay apart.
     */
    @Test
    void clockTokensOneApartAreToldApartUpTo2To53() {
        long clock = 1_764_000_000_000_001L;
        long top = (1L << 53) - 1;
        for (long base : new long[] {clock, top - 1}) {
            checker.clear(List.of(LOCK));
            checker.startFault("T");
            checker.enter(LOCK, "w1:0:0", base);
            checker.exit(LOCK, "w1:0:0");
            assertEquals(new Checker.Entry(0, 1), checker.enter(LOCK, "w2:0:0", base + 1), "one above: written");
            assertEquals(0, checker.write(LOCK, "w1:0:0", base), "one below: refused");
            assertEquals(new Checker.Entry(1, 2), checker.enter(LOCK, "w3:0:0", base + 1), "the same: stale");
            Map<String, String> counters = checker.counters();
            assertEquals("1", counters.get("T:refused"), () -> "at " + base);
            assertEquals("1", counters.get("T:stale_accepted"), () -> "at " + base);
        }
    }

    @Test
    void removingAKilledWorkerTakesOnlyItsHoldersOut() {
        checker.enter(LOCK, "w1:0:0", 5);
        checker.enter(LOCK, "w12:0:0", 6);
        checker.removeWorker(List.of(LOCK), "w1:");

        assertEquals(new Checker.Entry(1, 1), checker.enter(LOCK, "w3:0:0", 7), "w12's holder is still inside");
    }

    @Test
    void countersGoToTheFaultUnderWay() {
        checker.startFault("A");
        checker.enter(LOCK, "w1:0:0", 5);
        checker.exit(LOCK, "w1:0:0");
        checker.startFault("B");
        checker.enter(LOCK, "w1:0:1", 6);

        Map<String, String> counters = checker.counters();
        assertEquals("1", counters.get("A:acquisitions"));
        assertEquals("1", counters.get("B:acquisitions"));
    }

    private static Map<String, String> withoutGap(Map<String, String> counters) {
        counters.keySet().removeIf(key -> key.endsWith(":" + Checker.MAX_GAP_MS));
        return counters;
    }
}
