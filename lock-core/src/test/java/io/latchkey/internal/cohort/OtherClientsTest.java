package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConfig.LocalHandOff;
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
        assertFalse(others.readDue(2 * MS, 105), "counts from the last read");
        assertTrue(others.readDue(21 * MS, 105), "20 ms since the last read");
        others.waits();
        assertFalse(others.readDue(100 * MS, 200), "a waiter is known: nothing to read");
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
}
