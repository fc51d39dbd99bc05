package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LocalHandOff;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bookkeeping behind rule 2 of local hand-off, on a manual clock (nanoseconds passed in). */
class OtherClientsTest {

    private static final LocalHandOff BOUNDS = new LocalHandOff(8, Duration.ofMillis(20));
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void noBoundWhileNoOtherClientWaits() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertFalse(others.boundReached(1_000, 1_000 * MS), "a client alone keeps handing off");
    }

    @Test
    void onceAnotherClientWaitsTheHandOffsAndTheTimeAreBounded() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        others.waits();
        assertFalse(others.boundReached(7, 19 * MS));
        assertTrue(others.boundReached(8, 0), "eight hand-offs");
        assertTrue(others.boundReached(0, 20 * MS), "20 ms");
    }

    @Test
    void aNewTryForgetsTheWaiterOfTheLastHold() {
        OtherClients others = new OtherClients(BOUNDS);
        others.waits();
        others.trySent();
        assertFalse(others.boundReached(8, 20 * MS));
    }

    @Test
    void theMarkIsReadEveryHalfBoundOfHandOffsOrEveryMaxTimeAndNotWhileAWaiterIsKnown() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertFalse(others.readDue(MS, 103));
        assertTrue(others.readDue(MS, 104), "half of 8 hand-offs");
        others.readAnswered(104);
        assertFalse(others.readDue(2 * MS, 105), "counts from the last read");
        assertTrue(others.readDue(21 * MS, 105), "20 ms since the last read");
        others.readAnswered(105);
        others.waits();
        assertFalse(others.readDue(100 * MS, 200), "a waiter is known: nothing to read");
    }

    @Test
    void oneReadAtATimeAndOneUnansweredForMaxTimeMustBeHeardFirst() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertTrue(others.readDue(MS, 104));
        assertFalse(others.readDue(22 * MS, 105), "the last read is unanswered");
        assertFalse(others.mustHearFirst(20 * MS, 105), "19 ms unanswered");
        assertTrue(others.mustHearFirst(21 * MS, 105), "20 ms unanswered");
        others.readAnswered(104);
        assertFalse(others.mustHearFirst(100 * MS, 105), "answered");
        assertTrue(others.readDue(100 * MS, 105), "the next read may go");
    }

    @Test
    void aWholeBoundOfHandOffsPastTheLastAnswerMustBeHeardFirst() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertFalse(others.mustHearFirst(0, 107));
        assertTrue(others.mustHearFirst(0, 108), "8 hand-offs since the grant told of the mark");
        assertTrue(others.readDue(0, 104));
        others.readAnswered(104);
        assertFalse(others.mustHearFirst(0, 111), "counts from the answered read's hand-off");
        assertTrue(others.mustHearFirst(0, 112));
        others.waits();
        assertFalse(others.mustHearFirst(0, 1_000), "a waiter is known: the bound itself applies");
    }

    @Test
    void aFailedReadTellsNothingButLetsTheNextOneGo() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertTrue(others.readDue(0, 104));
        others.readFailed(104);
        assertTrue(others.mustHearFirst(0, 108), "still nothing heard since the grant");
        assertTrue(others.readDue(0, 108));
    }

    @Test
    void aGrantAnswersForTheMarkAndAnOlderReadsAnswerChangesNothing() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertTrue(others.readDue(MS, 104));
        others.granted(50 * MS, 2_000);
        assertFalse(others.mustHearFirst(100 * MS, 2_000), "the grant told of the mark");
        assertTrue(others.readDue(100 * MS, 2_001));
        others.readAnswered(104);
        assertTrue(others.mustHearFirst(200 * MS, 2_001), "the answer was of the read before the grant");
    }

    @Test
    void theClientsMarkIsWithdrawnOnceAndOnlyIfItStands() {
        OtherClients others = new OtherClients(BOUNDS);
        assertFalse(others.withdraw(), "the client never marked itself");
        others.marked();
        assertTrue(others.withdraw());
        assertFalse(others.withdraw(), "withdrawn already");
        others.marked();
        others.granted(0, 1);
        assertFalse(others.withdraw(), "the grant removed the mark in Redis");
    }

    @Test
    void theMarkIsReadMaxTimeAfterTheLastReadNotAfterTheGrant() {
        OtherClients others = new OtherClients(BOUNDS);
        others.granted(0, 100);
        assertTrue(others.readDue(15 * MS, 104), "half of 8 hand-offs");
        others.readAnswered(104);

        assertFalse(others.readDue(25 * MS, 105), "10 ms since the last read");
        assertTrue(others.readDue(35 * MS, 105), "20 ms since the last read");
    }

    @Test
    void theMarkStandsFromTheMarkingUntilItIsWithdrawn() {
        OtherClients others = new OtherClients(BOUNDS);
        assertFalse(others.isMarked());
        others.marked();
        assertTrue(others.isMarked());
        others.withdraw();
        assertFalse(others.isMarked());
    }
}
