package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.internal.wakeup.Wakeups;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The acquire loop below Redis: a {@link ScriptedProtocol} answers the tries, the wake-ups are
 * real {@link UnlockSubscriptions} over fake subscribe calls and a {@link ManualTimer} (whose
 * wait bounds never run out unless a test moves its time), so each test forces one interleaving.
 */
class AcquireAttemptTest {

    private static final String CHANNEL = "unlock-channel";
    private static final long OWNER = 1;
    private static final Lease LEASE = Lease.watchdog(Duration.ofSeconds(30));

    private final ManualTimer timer = ManualTimer.manual();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);
    private final ScriptedProtocol protocol = new ScriptedProtocol(
            owner -> subscriptions.join(CHANNEL, null), owner -> subscriptions.joinIfSubscribed(CHANNEL, null), timer.ticker());

    @Test
    void anAttemptWhoseTryIsInFlightAtCloseFailsWithLockException() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(OWNER); // joins the channel, tries again
        assertEquals(2, protocol.tries(OWNER));

        subscriptions.close(); // the client closes while the second try is on the wire
        protocol.answerHeld(OWNER); // which finds the lock held: the attempt goes on to wait

        assertTrue(attempt.result().isDone(), "the wait parked after close() was orphaned: lock() would hang");
        ExecutionException failure = assertThrows(ExecutionException.class, () -> attempt.result().get());
        assertInstanceOf(LockException.class, failure.getCause());
        assertTrue(attempt.settled().isDone());
    }

    @Test
    void aCancelThatComesWhileTheWaitIsBeingParkedEndsTheWaitAtOnce() {
        InterleavingWakeups wakeups = new InterleavingWakeups();
        ScriptedProtocol scripted = new ScriptedProtocol(owner -> CompletableFuture.completedFuture(wakeups), owner -> null,
                timer.ticker());
        AcquireAttempt attempt = AcquireAttempt.start(scripted, OWNER, LEASE, AcquireAttempt.forever());
        scripted.answerHeld(OWNER); // joins, tries again

        // After the attempt saw that it was not done, before its wait is parked: the cancel's
        // interrupt finds no wait to end (lockInterruptibly's interrupt takes the same path).
        wakeups.beforeNextPark(attempt::cancel);
        scripted.answerHeld(OWNER);

        assertTrue(attempt.result().isCancelled());
        assertTrue(attempt.settled().isDone(), "the cancel was lost: the wait sits out the holder's lease");
        assertEquals(2, scripted.tries(OWNER), "no try after the cancel");
    }

    @Test
    void aWokenWaiterWhoseNextTryFailsHandsTheWakeUpOn() {
        long first = 1;
        long second = 2;
        AcquireAttempt woken = AcquireAttempt.start(protocol, first, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(first); // joins, tries again
        protocol.answerHeld(first); // waits
        AcquireAttempt next = AcquireAttempt.start(protocol, second, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(second); // waits behind the first

        subscriptions.message(CHANNEL, ""); // the unlock: wakes the longest-waiting only
        assertEquals(3, protocol.tries(first));
        assertEquals(1, protocol.tries(second));

        protocol.answerFailure(first, new LockException("Redis call failed: ERR something went wrong"));
        assertTrue(woken.result().isCompletedExceptionally());
        assertEquals(2, protocol.tries(second), "the unlock message died with the failed try: the next waiter sleeps on");
        assertFalse(next.result().isDone());
    }

    /**
     * Wake-ups whose {@link #interrupt()}, like {@code ChannelWakeups}', ends only a wait that is
     * parked already, and that run a test's action just before they park the next one. Nothing
     * else ends a wait: there are no messages, and the bound never runs out.
     */
    private static final class InterleavingWakeups implements Wakeups {

        private Runnable beforePark = () -> { };
        private volatile CompletableFuture<Void> parked;

        void beforeNextPark(Runnable action) {
            beforePark = action;
        }

        @Override
        public long sequence() {
            return 0;
        }

        @Override
        public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
            Runnable action = beforePark;
            beforePark = () -> { };
            action.run();
            CompletableFuture<Void> wait = new CompletableFuture<>();
            parked = wait;
            return wait;
        }

        @Override
        public void interrupt() {
            CompletableFuture<Void> wait = parked;
            if (wait != null) {
                wait.complete(null);
            }
        }

        @Override
        public void handOn() {
        }

        @Override
        public void close() {
            interrupt();
        }
    }
}
