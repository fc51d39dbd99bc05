package io.latchkey.redlock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.spi.CohortRedis;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The quorum hold of a RedLock's cohort as the cohort hears of it, without Redis, on a manual
 * clock: what the parts' renewals confirm, which failures are a reason to doubt, and when the
 * hold counts as lost. Three masters, a majority of two.
 */
class CohortQuorumTest {

    private static final long LEASE = TimeUnit.SECONDS.toNanos(3);
    /** When a watchdog renews: a third of the lease. */
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final ManualClock clock = new ManualClock();
    private final Reports reports = new Reports();
    private final CohortQuorum<String> quorum = new CohortQuorum<>(100, parts("a", "b", "c"), 2, LEASE, clock, clock);
    private final Map<String, CohortRedis.HoldReports> members = quorum.watch(reports);

    private static Map<String, Long> parts(String... masters) {
        Map<String, Long> parts = new LinkedHashMap<>();
        for (int i = 0; i < masters.length; i++) {
            parts.put(masters[i], 90L + i);
        }
        return parts;
    }

    /** A renewal of {@code master} sent at {@code sentAt} that set the whole lease. */
    private void renewed(String master, long sentAt) {
        members.get(master).renewed(sentAt, sentAt + LEASE);
    }

    private static long valid(long sentAt) {
        return sentAt + LEASE - Master.driftNanos(LEASE);
    }

    @Test
    void theQuorumIsConfirmedUntilTheMajorityThLatestEndAndSentWhenAMajorityHadConfirmed() {
        clock.now = SECOND;
        renewed("a", SECOND);
        // One part of three renewed: a majority still stands only at the grant's validity.
        assertEquals(List.of(0L, LEASE), reports.confirmations.get(0));
        clock.now = SECOND + 100;
        renewed("b", SECOND + 100);
        // a and b renewed: the second latest end is a's, and a majority had confirmed by a's renewal.
        assertEquals(List.of(SECOND, valid(SECOND)), reports.confirmations.get(1));
    }

    @Test
    void aRenewalThatFailsOnAMinorityIsNoDoubtButOnAMajorityIs() {
        members.get("a").failed();
        assertEquals(0, reports.failures, "a RedLock outlives a minority");
        members.get("b").failed();
        assertEquals(1, reports.failures);
        renewed("b", SECOND);
        members.get("c").failed();
        assertEquals(2, reports.failures, "a and c fail: only b's renewal still stands");
    }

    @Test
    void theHoldIsLostOnceFewerThanAMajorityOfPartsRunWithinTheirLease() {
        members.get("a").lost();
        assertEquals(0, reports.losses, "two parts of three still hold it");
        members.get("b").lost();
        assertEquals(1, reports.losses);
    }

    @Test
    void aPartFoundGoneWhileAMajorityStillRunsIsADoubtSinceTheLeaseAsConfirmedCountedIt() {
        clock.now = SECOND;
        renewed("a", SECOND);
        renewed("b", SECOND);
        assertEquals(List.of(SECOND, valid(SECOND)), reports.confirmations.get(1));
        clock.now = SECOND + 100;
        members.get("a").lost();
        // b and c still have it, so it is not lost; but only until c's end (the grant's LEASE),
        // before the valid(SECOND) that the cohort was told with a's part: no hand-off on that.
        assertEquals(0, reports.losses);
        assertEquals(1, reports.failures, "the cohort must doubt the lease it was told");
        clock.advanceTo(LEASE + 1);
        assertEquals(1, reports.losses, "b and c no longer make a majority once c's lease ran out");
    }

    @Test
    void theHoldIsLostWhenTheMajoritysLeasesRunOutUnrenewed() {
        clock.now = SECOND;
        renewed("a", SECOND);
        renewed("b", SECOND);
        clock.advanceTo(LEASE + 1);
        assertEquals(0, reports.losses, "a and b were renewed after the grant");
        clock.advanceTo(valid(SECOND) + 1);
        assertEquals(1, reports.losses);
    }

    @Test
    void nothingIsReportedOnceTheHoldIsReleased() {
        quorum.end();
        members.get("a").lost();
        members.get("b").lost();
        members.get("c").failed();
        renewed("a", SECOND);
        clock.advanceTo(LEASE * 2);
        assertEquals(0, reports.losses + reports.failures + reports.confirmations.size());
        assertTrue(clock.pending().isEmpty(), "the check was cancelled");
    }

    /** What the cohort hears. */
    private static final class Reports implements CohortRedis.HoldReports {
        final List<List<Long>> confirmations = new ArrayList<>();
        int failures;
        int losses;

        @Override
        public void lost() {
            losses++;
        }

        @Override
        public void renewed(long sentAtNanos, long untilNanos) {
            confirmations.add(List.of(sentAtNanos, untilNanos));
        }

        @Override
        public void failed() {
            failures++;
        }
    }
}
