package io.latchkey.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short harness runs that {@code mvn verify} includes: every fault once with three worker
 * JVMs on one Redis, with a lock of each kind (plain, fair, read-write, RedLock; local hand-off
 * on), and the two Sentinel failovers (the second to a replica cut off first). (The Cluster topology runs the same code with a
 * Cluster fixture; it is left out here to keep the build's run near a minute and a half.)
 * It asserts only what must hold on any machine however loaded: the harness's own verdict (no
 * violation outside the known limits, no hang), a row per fault, no stale write accepted in any
 * row (tokens survive every fault here), and no exception from a {@code tryAcquire(wait)} whose wait
 * outlived the fault. No throughput or latency threshold.
 */
class FaultHarnessTest {

    private static final int RUNS = 1;
    private static final int OVERLAPS = 3;
    private static final int STALE_REFUSED = 4;
    private static final int STALE_ACCEPTED = 5;
    private static final int WAIT_EXCEPTIONS = 6;
    private static final int VERDICT = 12;
    private static final int KIND_HOLDS = 2;

    @Test
    @Tag("fault-runs")
    @Timeout(240)
    void everyFaultOnceWithoutAViolationBeyondItsKnownLimits() {
        Output output = run("--workers", "3", "--threads", "2", "--phase", "3s");

        assertPassedWithRows(output, EnumSet.complementOf(
                EnumSet.of(Fault.SENTINEL_FAILOVER, Fault.SENTINEL_FAILOVER_LAGGING, Fault.CLUSTER_FAILOVER)));
        assertEveryKindHeld(output, EnumSet.allOf(LockKind.class));
    }

    @Test
    @Tag("fault-runs")
    @Timeout(180)
    void sentinelFailoversKeepEverythingButTheirKnownLimitsAlsoToALaggingReplica() {
        Output output = run("--topology", "sentinel", "--workers", "2", "--threads", "2",
                "--faults", "sentinel-failover,sentinel-failover-lagging", "--phase", "2s");

        assertPassedWithRows(output, EnumSet.of(Fault.SENTINEL_FAILOVER, Fault.SENTINEL_FAILOVER_LAGGING));
        assertTrue(output.out.contains("fencing counters were behind on it"), output::describe);
        assertEveryKindHeld(output, EnumSet.of(LockKind.PLAIN, LockKind.FAIR, LockKind.READ_WRITE));
    }

    /** The checks can fail: a lease shorter than the critical sections lets holders overlap. */
    @Test
    @Tag("fault-runs")
    @Timeout(120)
    void aLeaseShorterThanTheCriticalSectionsFailsTheRunWithOverlapsThatFencingRefuses() throws IOException {
        Output output = run("--workers", "2", "--threads", "2", "--locks", "1", "--fixed-lease", "100ms",
                "--faults", "none", "--phase", "8s");

        assertEquals(FaultHarness.FAILED, output.status, output::describe);
        String[] cells = row(output.out, Fault.NONE);
        assertEquals("FAIL", cells[VERDICT], output::describe);
        assertTrue(output.out.contains("FAIL: no fault: " + cells[OVERLAPS].replace(",", "") + " overlaps"),
                output::describe);
        // Each overlap's earlier holder writes again after the later one entered and wrote.
        assertNotEquals("0", cells[STALE_REFUSED], output::describe);
        assertEquals("0", cells[STALE_ACCEPTED], output::describe);
        deleteRunDir(output.out);
    }

    /** The failed run kept its workers' logs for a reader; this test has read what it needs. */
    private static void deleteRunDir(String out) throws IOException {
        String marker = "(kept if the run fails): ";
        int at = out.indexOf(marker);
        assertTrue(at >= 0, out);
        Path dir = Path.of(out.substring(at + marker.length(), out.indexOf('\n', at)).trim());
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        }
    }

    private static void assertPassedWithRows(Output output, Set<Fault> faults) {
        assertEquals(FaultHarness.PASSED, output.status, output::describe);
        assertTrue(output.out.contains("PASS: "), output::describe);
        for (Fault fault : faults) {
            String[] cells = row(output.out, fault);
            assertEquals("1", cells[RUNS], () -> fault + "\n" + output.describe());
            assertTrue(cells[VERDICT].equals("ok") || cells[VERDICT].equals("known limit"),
                    () -> fault + "\n" + output.describe());
            assertEquals("0", cells[STALE_ACCEPTED], () -> fault + "\n" + output.describe());
            assertEquals("0", cells[WAIT_EXCEPTIONS], () -> fault + "\n" + output.describe());
            if (!fault.overlapIsKnownLimit) {
                assertEquals("0", cells[OVERLAPS], () -> fault + "\n" + output.describe());
            }
        }
    }

    /** Each kind's row in the table per kind: the kind was granted holds, and checked. */
    private static void assertEveryKindHeld(Output output, Set<LockKind> kinds) {
        for (LockKind kind : kinds) {
            String[] cells = row(output.out, "  " + kind.key() + "  ");
            assertNotEquals("0", cells[KIND_HOLDS], () -> kind + "\n" + output.describe());
        }
    }

    @Test
    void helpListsTheOptionsAndEveryFault() {
        Output output = run("--help");

        assertEquals(FaultHarness.PASSED, output.status, output::describe);
        for (Fault fault : Fault.values()) {
            assertTrue(output.out.contains(FaultOptions.key(fault)), () -> fault + "\n" + output.describe());
        }
    }

    @Test
    void badUsageExitsWithTwoAndSaysWhy() {
        Output unknown = run("--faults", "earthquake");
        Output ring = run("--topology", "ring");
        Output tooShort = run("--watchdog", "100ms");
        Output noWait = run("--wait", "0ms");
        Output unicorn = run("--kinds", "plain,unicorn");
        Output redLockOnSentinel = run("--topology", "sentinel", "--kinds", "plain,redlock");

        assertEquals(FaultHarness.USAGE, unknown.status, unknown::describe);
        assertTrue(unknown.err.contains("no fault named 'earthquake'"), unknown::describe);
        assertEquals(FaultHarness.USAGE, ring.status, ring::describe);
        assertTrue(ring.err.contains("--topology must be single, sentinel or cluster: ring"), ring::describe);
        assertEquals(FaultHarness.USAGE, tooShort.status, tooShort::describe);
        assertTrue(tooShort.err.contains("--watchdog must be at least 600ms: 100ms"), tooShort::describe);
        assertEquals(FaultHarness.USAGE, noWait.status, noWait::describe);
        assertTrue(noWait.err.contains("--wait must be positive: 0ms"), noWait::describe);
        assertEquals(FaultHarness.USAGE, unicorn.status, unicorn::describe);
        assertTrue(unicorn.err.contains("no lock kind named 'unicorn'"), unicorn::describe);
        assertEquals(FaultHarness.USAGE, redLockOnSentinel.status, redLockOnSentinel::describe);
        assertTrue(redLockOnSentinel.err.contains("--kinds redlock needs independent masters: --topology single, "
                + "not sentinel"), redLockOnSentinel::describe);
    }

    /** @return the cells of the fault's row in the final table, split where two spaces or more stand */
    private static String[] row(String out, Fault fault) {
        return row(out, "  " + fault.label + "  ");
    }

    /** @return the cells of the first line that starts with {@code start} */
    private static String[] row(String out, String start) {
        for (String line : out.split("\n")) {
            if (line.startsWith(start)) {
                return line.trim().split("\\s{2,}");
            }
        }
        throw new AssertionError("no row starting '" + start + "' in\n" + out);
    }

    private static Output run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = FaultHarness.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Output(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static final class Output {
        final int status;
        final String out;
        final String err;

        Output(int status, String out, String err) {
            this.status = status;
            this.out = out;
            this.err = err;
        }

        String describe() {
            return "status " + status + "\n--- out\n" + out + "--- err\n" + err;
        }
    }
}
