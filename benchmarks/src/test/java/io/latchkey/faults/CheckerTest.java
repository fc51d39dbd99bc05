package io.latchkey.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.latchkey.testing.RedisServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checker's scripts, called directly against a real Redis: what each counts as a violation,
 * for exclusive holds (a plain lock's) and for a read-write lock's readers and writers.
 */
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
        assertEquals(new Checker.Entry(0, 1), enter("w1:0:0", 5));
        assertEquals(1, write("w1:0:0", 5));
        checker.exit(LOCK, "w1:0:0");
        assertEquals(new Checker.Entry(0, 1), enter("w2:0:0", 6));

        assertEquals(Map.of("T:acquisitions", "2"), withoutGap(checker.counters()));
    }

    @Test
    void anEntryWhileAnotherHolderIsInsideIsAnOverlapAndTheStaleWriteIsRefused() {
        enter("w1:0:0", 5);
        assertEquals(new Checker.Entry(1, 1), enter("w2:0:0", 6));

        assertEquals(0, write("w1:0:0", 5), "the older token, after the newer wrote");
        Map<String, String> counters = withoutGap(checker.counters());
        assertEquals("1", counters.get("T:overlaps"));
        assertEquals("1", counters.get("T:refused"));
    }

    @Test
    void aTokenHandedOutTwiceIsAStaleWriteAccepted() {
        enter("w1:0:0", 7);
        checker.exit(LOCK, "w1:0:0");

        assertEquals(new Checker.Entry(0, 2), enter("w2:0:0", 7));
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
            enter("w1:0:0", base);
            checker.exit(LOCK, "w1:0:0");
            assertEquals(new Checker.Entry(0, 1), enter("w2:0:0", base + 1), "one above: written");
            assertEquals(0, write("w1:0:0", base), "one below: refused");
            assertEquals(new Checker.Entry(1, 2), enter("w3:0:0", base + 1), "the same: stale");
            Map<String, String> counters = checker.counters();
            assertEquals("1", counters.get("T:refused"), () -> "at " + base);
            assertEquals("1", counters.get("T:stale_accepted"), () -> "at " + base);
        }
    }

    @Test
    void removingAKilledWorkerTakesOnlyItsHoldersOut() {
        enter("w1:0:0", 5);
        enter("w12:0:0", 6);
        checker.removeWorker(List.of(LOCK), "w1:");

        assertEquals(new Checker.Entry(1, 1), enter("w3:0:0", 7), "w12's holder is still inside");
    }

    @Test
    void countersGoToTheFaultUnderWay() {
        checker.startFault("A");
        enter("w1:0:0", 5);
        checker.exit(LOCK, "w1:0:0");
        checker.startFault("B");
        enter("w1:0:1", 6);

        Map<String, String> counters = checker.counters();
        assertEquals("1", counters.get("A:acquisitions"));
        assertEquals("1", counters.get("B:acquisitions"));
    }

    @Test
    void readersInsideTogetherAreNoOverlapWhateverTheirTokensAndThoseOfOneWorkerAreCounted() {
        assertEquals(new Checker.Entry(0, 1), enterReader("w1:0:0", 5));
        assertEquals(new Checker.Entry(0, 1), enterReader("w1:1:0", 6));
        assertEquals(new Checker.Entry(0, 1), enterReader("w2:0:0", 4), "readers of two clients are not ordered");
        assertEquals(1, read("w1:0:0", 5));

        assertNull(checker.counters().get("T:overlaps"));
        Map<String, String> kinds = checker.kindCounters();
        assertEquals("3", kinds.get("read-write:reads"));
        assertEquals("2", kinds.get("read-write:reads_beside_readers"));
        assertEquals("1", kinds.get("read-write:reads_beside_own_readers"), "w1's second reader only");
        assertNotNull(kinds.get("read-write:max_gap_ms"), "the kind's longest time without a new grant");
    }

    @Test
    void aWriterBesideReadersAndAReaderBesideAWriterAreOverlaps() {
        enterReader("w1:0:0", 5);
        assertEquals(new Checker.Entry(1, 1), enterWriter("w2:0:0", 6));
        assertEquals(new Checker.Entry(1, 1), enterReader("w3:0:0", 7));

        assertEquals("2", checker.counters().get("T:overlaps"));
        assertEquals("2", checker.kindCounters().get("read-write:overlaps"));
    }

    @Test
    void aReaderBelowTheHighestTokenWrittenIsRefusedAndSoIsAWriterBelowTheHighestRead() {
        enterWriter("w1:0:0", 5);
        checker.exit(LOCK, "w1:0:0");
        assertEquals(new Checker.Entry(0, 0), enterReader("w2:0:0", 4));
        checker.exit(LOCK, "w2:0:0");
        enterReader("w2:0:1", 7);
        checker.exit(LOCK, "w2:0:1");
        assertEquals(new Checker.Entry(0, 0), enterWriter("w3:0:0", 6));

        assertEquals("2", checker.counters().get("T:refused"));
        assertNull(checker.counters().get("T:stale_accepted"));
    }

    @Test
    void aReaderWhoseLeaseRanOutIsRefusedOnceTheNextWriterWrote() {
        enterReader("w1:0:0", 5);
        enterWriter("w2:0:0", 6);

        assertEquals(0, read("w1:0:0", 5));
        assertEquals("1", checker.kindCounters().get("read-write:refused"));
    }

    @Test
    void aReaderWithAWritersTokenIsAStaleReadAcceptedAndAWriterWithAReadersToo() {
        enterWriter("w1:0:0", 5);
        checker.exit(LOCK, "w1:0:0");
        assertEquals(new Checker.Entry(0, 2), enterReader("w2:0:0", 5));
        checker.exit(LOCK, "w2:0:0");
        enterReader("w2:0:1", 8);
        checker.exit(LOCK, "w2:0:1");
        assertEquals(new Checker.Entry(0, 2), enterWriter("w3:0:0", 8));

        assertEquals("2", checker.counters().get("T:stale_accepted"));
        assertEquals("2", checker.kindCounters().get("read-write:stale_accepted"));
    }

    @Test
    void writersAfterReadersWithHigherTokensWriteWithoutComplaint() {
        enterReader("w1:0:0", 5);
        enterReader("w2:0:0", 9);
        checker.exit(LOCK, "w1:0:0");
        checker.exit(LOCK, "w2:0:0");

        assertEquals(new Checker.Entry(0, 1), enterWriter("w3:0:0", 10));
        assertEquals(1, checker.write(LOCK, LockKind.READ_WRITE, false, "w3:0:0", 10));
        assertEquals(Map.of("T:acquisitions", "3"), withoutGap(checker.counters()));
    }

    @Test
    void removingAKilledWorkerTakesItsReadersOutToo() {
        enterReader("w1:0:0", 5);
        checker.removeWorker(List.of(LOCK), "w1:");

        assertEquals(new Checker.Entry(0, 1), enterWriter("w2:0:0", 6));
    }

    private static Checker.Entry enter(String holder, long token) {
        return checker.enter(LOCK, LockKind.PLAIN, false, holder, token);
    }

    private static int write(String holder, long token) {
        return checker.write(LOCK, LockKind.PLAIN, false, holder, token);
    }

    private static Checker.Entry enterReader(String holder, long token) {
        return checker.enter(LOCK, LockKind.READ_WRITE, true, holder, token);
    }

    private static Checker.Entry enterWriter(String holder, long token) {
        return checker.enter(LOCK, LockKind.READ_WRITE, false, holder, token);
    }

    private static int read(String holder, long token) {
        return checker.write(LOCK, LockKind.READ_WRITE, true, holder, token);
    }

    private static Map<String, String> withoutGap(Map<String, String> counters) {
        counters.keySet().removeIf(key -> key.endsWith(":" + Checker.MAX_GAP_MS));
        return counters;
    }
}
