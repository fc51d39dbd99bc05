package io.latchkey.redlock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.latchkey.redlock.internal.Votes.Outcome;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The RedLock algorithm's counting, below Redis and the clock: majority of N, validity = lease −
 * elapsed − drift with drift = lease/100 + 2 ms, partial grants given back, and the wait until a
 * majority could be free. The masters are named by letters.
 */
class VotesTest {

    private static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long DRIFT_NANOS = TimeUnit.MILLISECONDS.toNanos(102); // 10 s / 100 + 2 ms

    @Test
    void aMajorityIsHalfTheMastersRoundedDownPlusOne() {
        int[] majorities = {1, 2, 2, 3, 3, 4, 4};
        for (int masters = 1; masters <= majorities.length; masters++) {
            assertEquals(majorities[masters - 1], Votes.majorityOf(masters), masters + " masters");
        }
    }

    @Test
    void theDriftAllowanceIsOnePercentOfTheLeasePlusTwoMilliseconds() {
        assertEquals(DRIFT_NANOS, Master.driftNanos(LEASE_NANOS));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(3), Master.driftNanos(TimeUnit.MILLISECONDS.toNanos(100)));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(2), Master.driftNanos(0));
    }

    @Test
    void aMajorityOfGrantsAcquiresWhileLeaseLessElapsedLessDriftIsPositive() {
        Votes<String> votes = votes(5, "ABC", 2);
        long elapsedToTheLimit = LEASE_NANOS - DRIFT_NANOS;

        assertEquals(Outcome.ACQUIRED, votes.decide(validity(elapsedToTheLimit - 1)));
        assertEquals(List.of(), votes.toRelease(Outcome.ACQUIRED), "an acquired hold keeps its grants");
        assertEquals(List.of("A", "B", "C"), votes.granted(), "the masters whose leases the watchdog watches");

        assertEquals(Outcome.TOO_LATE, votes.decide(validity(elapsedToTheLimit)), "nothing left to rely on");
        assertEquals(List.of("A", "B", "C"), votes.toRelease(Outcome.TOO_LATE), "every grant is given back");
    }

    @Test
    void aMinorityOfGrantsIsGivenBack() {
        Votes<String> votes = votes(5, "AB", 3);

        Outcome outcome = votes.decide(validity(0));

        assertEquals(Outcome.HELD, outcome, "2 of 5 is no majority, however fast");
        assertEquals(List.of("A", "B"), votes.toRelease(outcome), "a partial grant would only keep the others out");
    }

    @Test
    void halfTheMastersOfAnEvenNumberIsNoMajority() {
        assertEquals(Outcome.HELD, votes(4, "AB", 2).decide(validity(0)));
        assertEquals(Outcome.ACQUIRED, votes(4, "ABC", 1).decide(validity(0)));
    }

    @Test
    void fewerThanAMajorityAnsweringFailsTheTryAndGivesTheGrantsBack() {
        Votes<String> votes = votes(5, "A", 1); // three masters did not answer

        Outcome outcome = votes.decide(validity(0));

        assertEquals(Outcome.UNANSWERED, outcome);
        assertEquals(2, votes.answered());
        assertEquals(List.of("A"), votes.toRelease(outcome));
        assertEquals(Outcome.HELD, votes(5, "", 3).decide(validity(0)), "a majority that answered, all refusing");
    }

    @Test
    void aMajorityIsFreeOnceAsManyRefusingLeasesRanOutAsItLacks() {
        Votes<String> votes = new Votes<>(5);
        votes.granted("A");
        for (long lease : new long[] {300, 100, 400, 200}) {
            votes.refused(lease);
        }

        assertEquals(200, votes.majorityFreeInMillis(), "3 needed, 1 granted: the second-shortest lease");
    }

    @Test
    void aMajorityThatNeedsAMasterWithoutExpiryIsFreeOnlyByAnUnlock() {
        Votes<String> waitingForOne = new Votes<>(3);
        waitingForOne.granted("A");
        waitingForOne.refused(-1);
        waitingForOne.refused(50);
        assertEquals(50, waitingForOne.majorityFreeInMillis(), "the master without expiry is not needed");

        Votes<String> waitingForTwo = new Votes<>(3);
        waitingForTwo.refused(-1);
        waitingForTwo.refused(50);
        waitingForTwo.refused(-1);
        assertEquals(-1, waitingForTwo.majorityFreeInMillis());
    }

    @Test
    void theWaitForAFreeMajorityIsOnlyAskedOfAHeldLock() {
        assertThrows(IllegalStateException.class, () -> votes(3, "AB", 1).majorityFreeInMillis());
        assertThrows(IllegalStateException.class, () -> votes(5, "A", 1).majorityFreeInMillis());
    }

    /** @return the votes of {@code masters}: a grant from each letter of {@code granted}, then the refusals */
    private static Votes<String> votes(int masters, String granted, int refused) {
        Votes<String> votes = new Votes<>(masters);
        granted.chars().forEach(master -> votes.granted(String.valueOf((char) master)));
        for (int i = 0; i < refused; i++) {
            votes.refused(TimeUnit.SECONDS.toMillis(30));
        }
        return votes;
    }

    /** @return what is left of a 10 s lease after {@code elapsedNanos}, less the drift allowance */
    private static long validity(long elapsedNanos) {
        return LEASE_NANOS - elapsedNanos - Master.driftNanos(LEASE_NANOS);
    }
}
