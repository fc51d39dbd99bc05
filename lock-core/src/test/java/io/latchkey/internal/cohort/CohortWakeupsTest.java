package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.cohort.CohortBench.Waiter;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * One attempt's wake-ups on a cohort lock, below Redis: the cohort's local hand-offs and the
 * lock's unlock messages, one sequence for both, and a local signal that the woken owner does
 * not use passed on to the next local waiter.
 */
class CohortWakeupsTest {

    private static final long A = 1;
    private static final long B = 2;

    private final CohortBench bench = new CohortBench();
    private final Waiter first = bench.join(A);
    private final Waiter second = bench.join(B);
    private final LocalQueue queue = bench.existing().queue();

    @Test
    void theSequenceMovesWithLocalSignalsAndUnlockMessagesAlike() {
        long start = first.wakeups().sequence();

        queue.signalOne();
        assertEquals(start + 1, first.wakeups().sequence());
        first.channel().message();
        assertEquals(start + 2, first.wakeups().sequence());
    }

    @Test
    void aWaitFromASequenceAlreadyPassedEndsAtOnceAndOneFromTheCurrentParks() {
        long seen = first.wakeups().sequence();
        queue.signalOne();
        first.channel().message();

        assertTrue(first.wakeups().await(seen, CohortBench.FOREVER).isDone(), "two signals came since");
        assertFalse(first.park().isDone());
    }

    @Test
    void aLocalSignalThatTheOwnerDoesNotUseIsHandedOnToTheNextLocalWaiter() {
        CompletableFuture<Void> firstWait = first.park();
        CompletableFuture<Void> secondWait = second.park();

        queue.signalOne();
        assertTrue(firstWait.isDone());
        assertFalse(secondWait.isDone(), "a hand-off is for one owner");

        first.wakeups().handOn();
        assertEquals(1, first.channel().handOns);
        assertTrue(secondWait.isDone());
    }

    @Test
    void aWaitEndedByAnUnlockMessageHandsNothingOnLocally() {
        CompletableFuture<Void> firstWait = first.park();
        CompletableFuture<Void> secondWait = second.park();

        first.channel().message();
        assertTrue(firstWait.isDone());
        first.wakeups().handOn();

        assertEquals(1, first.channel().handOns, "the channel's own hand-on");
        assertFalse(secondWait.isDone());
    }

    @Test
    void aWaitEndedByAnUnlockMessageLeavesTheLocalQueue() {
        first.park();
        first.channel().message();
        CompletableFuture<Void> secondWait = second.park();
        long signals = queue.sequence();

        queue.signalOne();

        assertTrue(secondWait.isDone());
        assertEquals(signals + 1, queue.sequence(), "the signal went to the waiter still parked, at the first go");
    }

    @Test
    void aSignalThatReachesAWaitAlreadyEndedGoesToTheNextLocalWaiter() {
        CompletableFuture<Void> firstWait = first.park();
        CompletableFuture<Void> secondWait = second.park();
        // The caller's completion runs before the wait's own clean-up, and a hand-off there
        // signals the queue while the ended wait is still parked in it.
        firstWait.thenRun(queue::signalOne);

        first.wakeups().interrupt();

        assertTrue(secondWait.isDone());
    }

    @Test
    void anInterruptEndsTheWaitAndTheChannelsWait() {
        CompletableFuture<Void> wait = first.park();

        first.wakeups().interrupt();

        assertTrue(wait.isDone());
        assertEquals(1, first.channel().interrupts);
    }

    @Test
    void closingEndsTheWaitAndClosesTheChannelOnce() {
        CompletableFuture<Void> wait = first.park();

        first.close();
        first.close();

        assertTrue(wait.isDone());
        assertEquals(1, first.channel().closes);
    }
}
