package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The local half of a cohort's wake-ups: oldest first, one signal per hand-off, none missed. */
class LocalQueueTest {

    private final LocalQueue queue = new LocalQueue();

    @Test
    void everySignalMovesTheSequence() {
        assertEquals(0, queue.sequence());
        queue.signalOne();
        queue.signalAll();
        assertEquals(2, queue.sequence());
    }

    @Test
    void aParkFromASequenceAlreadyPassedEndsAtOnce() {
        queue.signalOne();

        assertTrue(queue.park(0).isDone(), "the signal came before the wait was parked");
        assertFalse(queue.park(queue.sequence()).isDone());
    }

    @Test
    void signalOneWakesTheOldestWaitOnly() {
        CompletableFuture<Void> first = queue.park(0);
        CompletableFuture<Void> second = queue.park(0);

        queue.signalOne();

        assertTrue(first.isDone());
        assertFalse(second.isDone());
    }

    @Test
    void anUnparkedWaitTakesNoSignal() {
        CompletableFuture<Void> first = queue.park(0);
        CompletableFuture<Void> second = queue.park(0);
        queue.unpark(first);

        queue.signalOne();

        assertFalse(first.isDone());
        assertTrue(second.isDone());
    }

    @Test
    void signalAllWakesEveryWaitAndLeavesNoneBehind() {
        CompletableFuture<Void> first = queue.park(0);
        CompletableFuture<Void> second = queue.park(0);

        queue.signalAll();
        assertTrue(first.isDone());
        assertTrue(second.isDone());

        CompletableFuture<Void> later = queue.park(queue.sequence());
        queue.signalOne();
        assertTrue(later.isDone(), "the next signal goes to the wait parked since");
    }
}
