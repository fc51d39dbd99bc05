package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Wakeups;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The acquire loop below Redis: a {@link ScriptedProtocol} answers the tries, the wake-ups are
 * real {@link UnlockSubscriptions} over fake subscribe calls, and time is a {@link ManualTimer}
 * with its ticker, which only the test moves, so each test forces one interleaving.
 */
class AcquireAttemptTest {

    private static final String CHANNEL = "unlock-channel";
    private static final long OWNER = 1;
    private static final LeaseTerm LEASE = LeaseTerm.watchdog(Duration.ofSeconds(30));
    private static final long ONE_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final ManualTimer timer = ManualTimer.manual();
    /** Every SUBSCRIBE and UNSUBSCRIBE sent, in order. */
    private final List<String> subscribeCalls = new CopyOnWriteArrayList<>();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> {
                subscribeCalls.add("subscribe");
                return CompletableFuture.completedFuture(null);
            },
            channel -> {
                subscribeCalls.add("unsubscribe");
                return CompletableFuture.completedFuture(null);
            }), timer);
    private final ScriptedProtocol protocol = new ScriptedProtocol(
            owner -> subscriptions.join(CHANNEL, null), owner -> subscriptions.joinIfSubscribed(CHANNEL, null), timer.ticker());

    // ---- how long an attempt waits, and how many tries it makes -------------------------------

    @Test
    void tryLockWithZeroWaitMakesExactlyOneTryAndSubscribesToNothing() {
        CompletableFuture<Boolean> acquired = new LockFacade(protocol, ScriptedProtocol.WATCHDOG_LEASE).tryLockAsync(Duration.ZERO, Duration.ofSeconds(10), OWNER);
        assertEquals(1, protocol.tries(OWNER));

        protocol.answerHeld(OWNER);

        assertFalse(done(acquired));
        assertEquals(1, protocol.tries(OWNER));
        assertEquals(List.of(), subscribeCalls, "a caller who will not wait needs no unlock message");
        assertEquals(0, timer.pending());
    }

    @Test
    void tryLockWithZeroWaitWhileOthersWaitHereMakesOneTryAndTakesNoWakeUpFromThem() {
        long waiter = 2;
        AcquireAttempt waiting = AcquireAttempt.start(protocol, new LockHolds(protocol), waiter, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(waiter); // subscribes, tries again
        protocol.answerHeld(waiter); // waits

        AcquireAttempt once = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, 0); // joins the channel at once
        protocol.answerHeld(OWNER);
        assertNull(done(once.result()));
        assertEquals(1, protocol.tries(OWNER));
        assertEquals(List.of("subscribe"), subscribeCalls, "the other waiter still needs the channel");

        subscriptions.message(CHANNEL, "");
        assertEquals(3, protocol.tries(waiter), "the unlock message went to the waiter that is left");
        assertFalse(waiting.result().isDone());
    }

    @Test
    void theDeadlineReachedExactlyWhileATryIsInFlightEndsTheAttemptAfterThatTry() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, ONE_SECOND);
        protocol.answerHeld(OWNER); // subscribes, tries again
        assertEquals(2, protocol.tries(OWNER));

        timer.advance(Duration.ofSeconds(1)); // the wait runs out to the nanosecond while the try is on the wire
        protocol.answerHeld(OWNER);

        assertNull(done(attempt.result()));
        assertTrue(attempt.settled().isDone());
        assertEquals(2, protocol.tries(OWNER), "no try after the deadline");
        assertEquals(List.of("subscribe", "unsubscribe"), subscribeCalls, "the attempt left its channel");
        assertEquals(0, timer.pending(), "no wait left parked");
    }

    @Test
    void aTryAnsweredOneNanosecondBeforeTheDeadlineWaitsAMillisecondAndTriesOnceMore() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, ONE_SECOND);
        protocol.answerHeld(OWNER);
        timer.advance(ONE_SECOND - 1, TimeUnit.NANOSECONDS);
        protocol.answerHeld(OWNER); // 1 ns left: not spun away, but not given up either

        timer.advance(999_999, TimeUnit.NANOSECONDS);
        assertEquals(2, protocol.tries(OWNER), "a wait is at least a millisecond");
        timer.advance(1, TimeUnit.NANOSECONDS);
        assertEquals(3, protocol.tries(OWNER));

        protocol.answerHeld(OWNER);
        assertNull(done(attempt.result()));
        assertEquals(3, protocol.tries(OWNER));
    }

    @Test
    void aGrantThatArrivesAfterTheDeadlineStillCounts() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, ONE_SECOND);
        protocol.answerHeld(OWNER);
        timer.advance(Duration.ofSeconds(2));

        protocol.answerGranted(OWNER);

        assertNotNull(done(attempt.result()), "the owner holds the lock: answering false would leak the hold");
        assertEquals(0, protocol.releases(OWNER));
        assertEquals(List.of("subscribe", "unsubscribe"), subscribeCalls);
    }

    @Test
    void aDeadlineBeyondTheTickersWrapAroundStillRunsOut() {
        ManualTimer wrapping = ManualTimer.manual(new ManualTicker(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(500)));
        UnlockSubscriptions channel = new UnlockSubscriptions(SubscriptionCommands.of(
                c -> CompletableFuture.completedFuture(null), c -> CompletableFuture.completedFuture(null)), wrapping);
        ScriptedProtocol scripted = new ScriptedProtocol(
                owner -> channel.join(CHANNEL, null), owner -> null, wrapping.ticker());
        AcquireAttempt attempt = AcquireAttempt.start(scripted, new LockHolds(scripted), OWNER, LEASE, ONE_SECOND);
        scripted.answerHeld(OWNER);
        scripted.answerHeld(OWNER); // waits a second: past Long.MAX_VALUE on the ticker

        wrapping.advance(ONE_SECOND - 1, TimeUnit.NANOSECONDS);
        assertEquals(2, scripted.tries(OWNER));
        wrapping.advance(1, TimeUnit.NANOSECONDS);
        assertEquals(3, scripted.tries(OWNER));
        scripted.answerHeld(OWNER);

        assertNull(done(attempt.result()));
    }

    // ---- what bounds a wait ------------------------------------------------------------------

    @Test
    void aWaitIsBoundedByTheHoldersRemainingLease() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeldFor(OWNER, 200);
        protocol.answerHeldFor(OWNER, 200); // waits for an unlock message, or for the lease to run out

        timer.advance(Duration.ofMillis(199));
        assertEquals(2, protocol.tries(OWNER));
        timer.advance(Duration.ofMillis(1));
        assertEquals(3, protocol.tries(OWNER), "the holder's lease ran out: try again without a message");
        assertFalse(attempt.result().isDone());
    }

    @Test
    void aWaitIsBoundedByWhatIsLeftOfTheCallersWaitWhenTheLeaseIsLonger() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, TimeUnit.MILLISECONDS.toNanos(100));
        protocol.answerHeld(OWNER);
        timer.advance(Duration.ofMillis(30));
        protocol.answerHeld(OWNER); // a minute's lease; 70 ms of the caller's wait left

        timer.advance(Duration.ofMillis(69));
        assertEquals(2, protocol.tries(OWNER));
        timer.advance(Duration.ofMillis(1));
        assertEquals(3, protocol.tries(OWNER), "one last try at the deadline");
        protocol.answerHeld(OWNER);

        assertNull(done(attempt.result()));
    }

    @Test
    void aHolderLeaseAboutToRunOutStillWaitsAMillisecondRatherThanSpinning() {
        AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeldFor(OWNER, 0);
        protocol.answerHeldFor(OWNER, 0);

        timer.advance(999_999, TimeUnit.NANOSECONDS);
        assertEquals(2, protocol.tries(OWNER));
        timer.advance(1, TimeUnit.NANOSECONDS);
        assertEquals(3, protocol.tries(OWNER));
    }

    @Test
    void aLockWithoutExpiryIsTriedAgainOnlyOnAnUnlockMessage() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeldFor(OWNER, -1);
        protocol.answerHeldFor(OWNER, -1);

        timer.advance(Duration.ofDays(365));
        assertEquals(2, protocol.tries(OWNER), "no bound but the caller's, which is forever");

        subscriptions.message(CHANNEL, "");
        assertEquals(3, protocol.tries(OWNER));
        protocol.answerGranted(OWNER);
        assertNotNull(done(attempt.result()));
    }

    // ---- cancel ------------------------------------------------------------------------------

    @Test
    void aGrantThatArrivesAfterCancelIsReleased() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        CompletableFuture<Void> cancelled = attempt.cancel();
        assertTrue(attempt.result().isCancelled());
        assertFalse(cancelled.isDone(), "the try is still on the wire: it may yet grant");

        protocol.answerGranted(OWNER);

        assertEquals(1, protocol.releases(OWNER), "nobody would ever unlock the grant");
        assertTrue(cancelled.isDone());
        assertEquals(1, protocol.tries(OWNER));
    }

    @Test
    void aCancelAfterTheGrantReleasesTheHoldOnceHoweverOftenItIsCalled() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerGranted(OWNER);
        assertNotNull(done(attempt.result()));

        done(attempt.cancel());
        done(attempt.cancel());

        assertEquals(1, protocol.releases(OWNER), "a second release would take a re-entered level of the caller's");
    }

    @Test
    void aCancelWhileWaitingEndsTheWaitAndLeavesTheChannel() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(OWNER);
        protocol.answerHeld(OWNER);
        assertEquals(1, timer.pending(), "the wait's bound");

        done(attempt.cancel());

        assertEquals(2, protocol.tries(OWNER));
        assertEquals(0, protocol.releases(OWNER));
        assertEquals(0, timer.pending());
        assertEquals(List.of("subscribe", "unsubscribe"), subscribeCalls);
    }

    // ---- failures and close ------------------------------------------------------------------

    @Test
    void anAttemptWhoseTryIsInFlightAtCloseFailsWithLockException() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
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
        AcquireAttempt attempt = AcquireAttempt.start(scripted, new LockHolds(scripted), OWNER, LEASE, AcquireAttempt.forever());
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
        AcquireAttempt woken = AcquireAttempt.start(protocol, new LockHolds(protocol), first, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(first); // joins, tries again
        protocol.answerHeld(first); // waits
        AcquireAttempt next = AcquireAttempt.start(protocol, new LockHolds(protocol), second, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(second); // waits behind the first

        subscriptions.message(CHANNEL, ""); // the unlock: wakes the longest-waiting only
        assertEquals(3, protocol.tries(first));
        assertEquals(1, protocol.tries(second));

        protocol.answerFailure(first, new LockException("Redis call failed: ERR something went wrong"));
        assertTrue(woken.result().isCompletedExceptionally());
        assertEquals(2, protocol.tries(second), "the unlock message died with the failed try: the next waiter sleeps on");
        assertFalse(next.result().isDone());
    }

    /** The outcome of a future that must be complete by now: a test never blocks on one that is not. */
    private static <T> T done(CompletableFuture<T> future) {
        assertTrue(future.isDone(), "still running");
        return future.join();
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
