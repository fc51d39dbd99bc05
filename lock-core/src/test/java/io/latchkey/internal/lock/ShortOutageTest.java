package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The retry schedule of a short outage, below Redis: a {@link ScriptedProtocol} fails or answers
 * each try as the test says, and a {@link ManualTimer} is the client's timer, so each pause is
 * exact. API.md, "a short outage during a wait".
 */
class ShortOutageTest {

    private static final long OWNER = 1;
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final ManualTimer timer = ManualTimer.manual();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);
    private final ScriptedProtocol protocol = new ScriptedProtocol(owner -> subscriptions.join("channel", null),
            owner -> subscriptions.joinIfSubscribed("channel", null), timer.ticker()).retryingOn(timer, COMMAND_TIMEOUT);
    private final LockFacade lock = new LockFacade(protocol, ScriptedProtocol.WATCHDOG_LEASE);

    private static LockConnectionException notConnected() {
        return new LockConnectionException("Redis is unreachable for lock 'scripted'",
                new RedisException("Currently not connected. Commands are rejected."));
    }

    private static LockRefusedException loading() {
        return new LockRefusedException("Redis refused the call for lock 'scripted'",
                new RedisCommandExecutionException("LOADING Redis is loading the dataset in memory"));
    }

    @Test
    void aTryThatRedisDidNotTakeIsMadeAgainWithAGrowingPauseAndTheWaitEndsAcquired() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ofSeconds(8), LEASE, OWNER);
        protocol.answerFailure(OWNER, notConnected());
        assertEquals(1, protocol.tries(OWNER));

        long[] pausesMillis = {10, 20, 40, 80, 160, 320, 500, 500};
        for (long pause : pausesMillis) {
            int before = protocol.tries(OWNER);
            timer.advance(pause - 1, TimeUnit.MILLISECONDS);
            assertEquals(before, protocol.tries(OWNER), "no try before the pause of " + pause + " ms is over");
            timer.advance(1, TimeUnit.MILLISECONDS);
            assertEquals(before + 1, protocol.tries(OWNER));
            protocol.answerFailure(OWNER, pause < 100 ? notConnected() : loading());
        }
        timer.advance(500, TimeUnit.MILLISECONDS);
        protocol.answerGranted(OWNER);

        assertTrue(acquired.join());
        assertFalse(acquired.isCompletedExceptionally());
        assertEquals(0, protocol.abandons(OWNER));
        assertEquals(0, timer.pending());
    }

    @Test
    void theLastTryIsMadeBeforeTheEndOfTheWaitAndItsFailureIsThrownAtTheEnd() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ofSeconds(3), LEASE, OWNER);
        long start = timer.ticker().read();
        while (protocol.inFlight(OWNER)) {
            protocol.answerFailure(OWNER, notConnected());
            timer.advance(1, TimeUnit.MILLISECONDS);
            while (!protocol.inFlight(OWNER) && timer.pending() > 0) {
                timer.advance(1, TimeUnit.MILLISECONDS);
            }
        }

        long lastTry = protocol.lastTryNanos() - start;
        assertTrue(lastTry < TimeUnit.SECONDS.toNanos(3) && lastTry >= TimeUnit.MILLISECONDS.toNanos(3000 - ShortOutage.MAX_PAUSE_MILLIS),
                "the last try is the last one a pause allows before the wait ends: " + lastTry);
        assertEquals(TimeUnit.SECONDS.toNanos(3), timer.ticker().read() - start, "thrown as the wait ends");
        LockException thrown = failure(acquired);
        assertTrue(thrown instanceof LockConnectionException, thrown.toString());
        assertEquals(1, protocol.abandons(OWNER), "the attempt's trace is dropped as before");
    }

    @Test
    void aZeroWaitTriesAgainForTheCommandTimeoutThenThrows() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ZERO, LEASE, OWNER);
        while (timer.ticker().read() < COMMAND_TIMEOUT.minusMillis(2).toNanos()) {
            if (protocol.inFlight(OWNER)) {
                protocol.answerFailure(OWNER, loading());
            }
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertFalse(acquired.isDone(), "still trying within the command timeout");
        assertTrue(protocol.tries(OWNER) > 5, "tried again: " + protocol.tries(OWNER));

        while (!acquired.isDone()) {
            if (protocol.inFlight(OWNER)) {
                protocol.answerFailure(OWNER, loading());
            }
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertTrue(timer.ticker().read() <= COMMAND_TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(1));
        assertTrue(failure(acquired) instanceof LockRefusedException);
    }

    @Test
    void aZeroWaitThatOutlivesTheOutageAnswersAsIfItHadNotHappened() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ZERO, LEASE, OWNER);
        protocol.answerFailure(OWNER, notConnected());
        timer.advance(10, TimeUnit.MILLISECONDS);
        protocol.answerHeld(OWNER);

        assertFalse(acquired.join(), "taken: false, as a zero wait answers without an outage");
        assertEquals(0, timer.pending());
    }

    @Test
    void lockTriesForTheCommandTimeoutFromTheFirstFailureOfEachOutage() {
        CompletableFuture<Void> locked = lock.lockAsync(LEASE, OWNER);
        protocol.answerHeldFor(OWNER, 5_000); // joins the wake-ups, tries again
        protocol.answerHeldFor(OWNER, 5_000); // waits for the holder's lease
        timer.advance(Duration.ofSeconds(5));
        // Long after the start: an outage begins now.
        protocol.answerFailure(OWNER, notConnected());
        timer.advance(Duration.ofMillis(1_500));
        protocol.answerFailure(OWNER, notConnected());
        assertFalse(locked.isDone(), "within the command timeout of the outage's first failure");
        timer.advance(Duration.ofMillis(400));
        protocol.answerGranted(OWNER);
        locked.join();

        lock.unlockAsync(OWNER).join();
        CompletableFuture<Void> again = lock.lockAsync(LEASE, OWNER);
        long outageStart = timer.ticker().read();
        protocol.answerFailure(OWNER, notConnected());
        while (!again.isDone()) {
            if (protocol.inFlight(OWNER)) {
                protocol.answerFailure(OWNER, notConnected());
            }
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertTrue(failure(again) instanceof LockConnectionException, "an outage longer than the command timeout");
        assertTrue(protocol.lastTryNanos() - outageStart < COMMAND_TIMEOUT.toNanos(), "no try at the end");
        assertEquals(COMMAND_TIMEOUT.toNanos(), timer.ticker().read() - outageStart, "thrown as the command timeout ends");
    }

    /** A try that is under way when the outage's tries end is cut short, and its late grant handed back. */
    @Test
    void lockFailsAsTheOutagesCommandTimeoutEndsEvenWithATryUnderWay() {
        CompletableFuture<Void> locked = lock.lockAsync(LEASE, OWNER);
        long outageStart = timer.ticker().read();
        protocol.answerFailure(OWNER, notConnected());
        timer.advance(Duration.ofMillis(1_500));
        assertTrue(protocol.inFlight(OWNER), "tried again, and Redis has not answered that try yet");
        timer.advance(Duration.ofMillis(500));
        assertTrue(failure(locked) instanceof LockConnectionException, "the outage's failure, as the command timeout ends");
        assertEquals(COMMAND_TIMEOUT.toNanos(), timer.ticker().read() - outageStart);
        protocol.answerGranted(OWNER);
        assertEquals(1, protocol.releases(OWNER), "the late grant is handed back");
        assertEquals(0, timer.pending());
    }

    /**
     * The end of an outage that Redis answered cuts neither a try made after it nor a later
     * outage short.
     */
    @Test
    void theEndOfAnEarlierOutageCutsNeitherALaterTryNorALaterOutageShort() {
        CompletableFuture<Void> locked = lock.lockAsync(LEASE, OWNER);
        protocol.answerFailure(OWNER, notConnected()); // the first outage: its tries end at 2 s
        timer.advance(10, TimeUnit.MILLISECONDS);
        protocol.answerHeldFor(OWNER, 1_500); // Redis answered: joins the wake-ups, tries again
        protocol.answerHeldFor(OWNER, 1_500); // waits for the holder's lease
        timer.advance(Duration.ofMillis(1_500));
        assertTrue(protocol.inFlight(OWNER), "tried again at 1.51 s");
        timer.advance(Duration.ofMillis(1_000));
        assertFalse(locked.isDone(), "a try after the outage, under way as its end passes, cut short");

        protocol.answerFailure(OWNER, notConnected()); // the second outage: its tries end at 3.51 s
        timer.advance(Duration.ofMillis(900));
        assertTrue(protocol.inFlight(OWNER));
        assertFalse(locked.isDone(), "the second outage cut short");
        protocol.answerGranted(OWNER);
        locked.join();
        assertEquals(0, timer.pending());
    }

    /** A cancel after the cut gives nothing back itself, and completes once the try under way is given up. */
    @Test
    void aCancelAfterTheCutCompletesOnceTheTryUnderWayIsGivenUp() {
        Acquisition<io.latchkey.spi.Hold> attempt = new Acquisitions(protocol).start(OWNER,
                io.latchkey.spi.LeaseTerm.watchdog(LEASE), AcquireAttempt.forever());
        protocol.answerFailure(OWNER, notConnected());
        timer.advance(COMMAND_TIMEOUT);
        assertTrue(protocol.inFlight(OWNER));
        assertTrue(attempt.result().isCompletedExceptionally(), "cut as the command timeout ends");
        CompletableFuture<Void> cancelled = attempt.cancel();
        CompletableFuture<Void> again = attempt.cancel();
        assertFalse(cancelled.isDone(), "the try under way is not given up yet");

        protocol.answerGranted(OWNER);
        assertTrue(cancelled.isDone() && again.isDone());
        assertEquals(1, protocol.releases(OWNER), "the late grant is handed back once");
        assertEquals(1, protocol.abandons(OWNER));
        assertEquals(0, timer.pending());
    }

    /**
     * With local hand-off, a try made while another owner's call is in flight shares that call's
     * answer; when the call fails, Redis answered neither. Answered a plain "busy", each such try
     * ended the outage, so lock() among waiters taking turns ran past its command timeout.
     */
    @Test
    void lockWhoseTriesShareFailedCallsOfOtherWaitersStillEndsAtTheCommandTimeout() {
        CompletableFuture<Void> locked = lock.lockAsync(LEASE, OWNER);
        long outageStart = timer.ticker().read();
        boolean ownTry = true;
        while (!locked.isDone() && timer.ticker().read() - outageStart < 3 * COMMAND_TIMEOUT.toNanos()) {
            if (protocol.inFlight(OWNER)) {
                if (ownTry) {
                    protocol.answerFailure(OWNER, notConnected());
                } else {
                    protocol.answerSharedFailure(OWNER, notConnected());
                }
                ownTry = !ownTry;
            }
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertTrue(locked.isDone(), "lock() outlasted its bound during an outage of " + protocol.tries(OWNER) + " tries");
        assertTrue(failure(locked) instanceof LockConnectionException);
        assertTrue(timer.ticker().read() - outageStart <= COMMAND_TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(1));
    }

    /**
     * An outage that lock() first meets as another waiter's failed call (local hand-off) ends as
     * one met by a try of its own: the call throws as the command timeout ends, even while its
     * next try waits behind a call that hangs. Before, only a try's own failure set the end, so
     * lock() ran on until that try's answer, up to twice the command timeout.
     */
    @Test
    void lockWhoseOutageBeganWithASharedFailureEndsAtTheCommandTimeoutWithATryUnderWay() {
        CompletableFuture<Void> locked = lock.lockAsync(LEASE, OWNER);
        long outageStart = timer.ticker().read();
        protocol.answerSharedFailure(OWNER, notConnected());
        while (!protocol.inFlight(OWNER) && timer.ticker().read() - outageStart < COMMAND_TIMEOUT.toNanos()) {
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertTrue(protocol.inFlight(OWNER), "tried again");

        // That try waits behind another waiter's call, which Redis does not answer.
        timer.advance(Duration.ofNanos(COMMAND_TIMEOUT.toNanos() - (timer.ticker().read() - outageStart)));
        assertTrue(locked.isDone(), "still waiting as the outage's command timeout ends");
        assertTrue(failure(locked) instanceof LockConnectionException, "the outage's failure");

        protocol.answerGranted(OWNER);
        assertEquals(1, protocol.releases(OWNER), "the late grant is handed back");
        assertEquals(1, protocol.abandons(OWNER));
        assertEquals(0, timer.pending());
    }

    /**
     * A zero wait whose only answer is another waiter's failed call heard nothing from Redis: it
     * tries again within the command timeout, as after a failure of its own. Before, it answered
     * false at once, "taken", although Redis had said nothing of the lock.
     */
    @Test
    void aZeroWaitWhoseTryMeetsASharedFailureTriesAgainInsteadOfAnsweringTaken() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ZERO, LEASE, OWNER);
        protocol.answerSharedFailure(OWNER, notConnected());
        assertFalse(acquired.isDone(), "answered " + (acquired.isDone() ? acquired.join() : null) + " without Redis");

        timer.advance(ShortOutage.FIRST_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
        assertEquals(2, protocol.tries(OWNER));
        protocol.answerGranted(OWNER);
        assertTrue(acquired.join());
        assertEquals(0, timer.pending());
    }

    /**
     * With no try under way as the outage's tries end (the pause before the next would reach the
     * end), the attempt leaves its trace in Redis (a fair lock's queue) before the call throws,
     * as the README says and as every other failure does. Before, the end of the outage cut the
     * attempt at once, and the call threw with its queue entry still in Redis.
     */
    @Test
    void withNoTryUnderWayAtTheEndTheAttemptLeavesItsQueueBeforeItThrows() {
        protocol.abandonsWaitForTheTest();
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ZERO, LEASE, OWNER);
        while (protocol.abandons(OWNER) == 0 && !acquired.isDone()) {
            if (protocol.inFlight(OWNER)) {
                protocol.answerFailure(OWNER, notConnected());
            }
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertFalse(protocol.inFlight(OWNER), "no try under way at the end");
        assertEquals(1, protocol.abandons(OWNER), "leaves its queue at the end");
        assertFalse(acquired.isDone(), "threw before the attempt left its queue");

        protocol.answerAbandon();
        assertTrue(failure(acquired) instanceof LockConnectionException, "the outage's failure");
        assertEquals(0, timer.pending());
    }

    /**
     * The bound of a zero wait holds even when its last try, started just before the command
     * timeout runs out, first waits for the settling of the try before it (whose answer was
     * lost): the attempt fails as the command timeout ends, and that try is given up as a cancel
     * gives it up, its grant handed back (README, "A short outage during a wait"). Before, the
     * attempt waited for the settling and the try: up to 3 x the command timeout.
     */
    @Test
    void aZeroWaitWhoseLastTryWaitsForASettlementStillEndsAtTheCommandTimeout() {
        protocol.settlingOn(new UnsettledCalls(timer));
        long start = timer.ticker().read();
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ZERO, LEASE, OWNER);
        // Not connected, each answered at once, for a while.
        while (timer.ticker().read() - start < COMMAND_TIMEOUT.minusMillis(1500).toNanos() || !protocol.inFlight(OWNER)) {
            if (protocol.inFlight(OWNER)) {
                protocol.answerFailure(OWNER, notConnected());
            }
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertFalse(protocol.settlementInFlight(), "a try rejected unsent needs no settling");

        // Then the connection breaks under a try, and settling it waits for a Redis that hangs.
        protocol.answerFailure(OWNER, LockExceptions.unreachable("scripted", new ClosedChannelException()));
        int tries = protocol.tries(OWNER);
        while (!acquired.isDone()) {
            assertTrue(timer.ticker().read() - start <= COMMAND_TIMEOUT.toNanos(), "still trying after the command timeout");
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertTrue(failure(acquired) instanceof LockConnectionException, "the outage's failure");
        assertTrue(protocol.settlementInFlight(), "the last try settles the one before it first");
        assertEquals(tries, protocol.tries(OWNER), "the last try waits for the settling call");

        // The given-up try goes on as after a cancel: sent once settled, its grant handed back.
        protocol.answerSettlement();
        while (!protocol.inFlight(OWNER) && timer.pending() > 0) {
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertEquals(tries + 1, protocol.tries(OWNER), "sent once the try before it is settled");
        protocol.answerGranted(OWNER);
        assertEquals(1, protocol.releases(OWNER), "the grant nobody waits for is handed back");
        assertEquals(0, timer.pending());
    }

    @Test
    void lockAndAZeroWaitDoNotTryAgainAfterATryThatTookTheWholeCommandTimeout() {
        CompletableFuture<Void> locked = lock.lockAsync(LEASE, OWNER);
        timer.advance(COMMAND_TIMEOUT);
        protocol.answerFailure(OWNER, new LockTimeoutException("Redis did not answer within PT2S", null));
        assertTrue(failure(locked) instanceof LockTimeoutException, "today's bound: one round trip");

        CompletableFuture<Boolean> once = lock.tryLockAsync(Duration.ZERO, LEASE, 2);
        timer.advance(COMMAND_TIMEOUT.minusMillis(100));
        protocol.answerFailure(2, notConnected());
        timer.advance(Duration.ofMillis(100));
        assertEquals(2, protocol.tries(2), "tried again for what is left of the command timeout");
        protocol.answerFailure(2, notConnected());
        assertTrue(failure(once) instanceof LockConnectionException);
        assertEquals(0, timer.pending());
    }

    @Test
    void aTimedOutTryIsMadeAgainWhileTheWaitLasts() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ofSeconds(8), LEASE, OWNER);
        protocol.answerFailure(OWNER, new LockTimeoutException("Redis did not answer within PT2S", null));
        timer.advance(10, TimeUnit.MILLISECONDS);
        protocol.answerGranted(OWNER);

        assertTrue(acquired.join());
    }

    @Test
    void aRefusalThatMeansNoAndAFailureThatIsNotAnOutageEndTheAttemptAtOnce() {
        CompletableFuture<Boolean> refused = lock.tryLockAsync(Duration.ofSeconds(8), LEASE, OWNER);
        LockRefusedException noScript = new LockRefusedException("refused",
                new RedisCommandExecutionException("ERR Error running script"));
        protocol.answerFailure(OWNER, noScript);
        assertSame(noScript, failure(refused));

        long other = 2;
        CompletableFuture<Boolean> notAcknowledged = lock.tryLockAsync(Duration.ofSeconds(8), LEASE, other);
        LockException shortfall = new LockException("granted but only 0 of 1 replicas acknowledged it", null);
        protocol.answerFailure(other, shortfall);
        assertSame(shortfall, failure(notAcknowledged));
        assertEquals(1, protocol.tries(OWNER));
        assertEquals(1, protocol.tries(other));
        assertEquals(0, timer.pending());
    }

    @Test
    void aCancelDuringThePauseEndsTheAttemptAtOnceAndNoTryFollows() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ofSeconds(8), LEASE, OWNER);
        protocol.answerFailure(OWNER, notConnected());
        timer.advance(5, TimeUnit.MILLISECONDS);

        acquired.cancel(false);

        assertEquals(1, protocol.abandons(OWNER), "cleaned up without waiting for the pause to end");
        assertEquals(0, timer.pending());
        timer.advance(Duration.ofSeconds(1));
        assertEquals(1, protocol.tries(OWNER));
    }

    @Test
    void theClientClosingDuringThePauseEndsTheAttemptWithTheClosedClientsException() {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(Duration.ofSeconds(8), LEASE, OWNER);
        protocol.answerFailure(OWNER, notConnected());

        // As SharedResources.close() does: the stopped timer's dropped tasks are told so.
        timer.stop().forEach(dropped -> ((io.latchkey.internal.time.StopAwareTask) dropped.task()).timerStopped());

        assertTrue(failure(acquired).getMessage().contains("closed while waiting"));
        assertEquals(1, protocol.abandons(OWNER));
    }

    @Test
    void withoutATimerAFailedTryEndsTheAttemptAsBefore() {
        ScriptedProtocol untimed = new ScriptedProtocol(owner -> new CompletableFuture<>(), owner -> null, timer.ticker());
        CompletableFuture<Boolean> acquired = new LockFacade(untimed, ScriptedProtocol.WATCHDOG_LEASE).tryLockAsync(Duration.ofSeconds(8), LEASE, OWNER);
        LockConnectionException down = notConnected();
        untimed.answerFailure(OWNER, down);
        assertSame(down, failure(acquired));
    }

    private static LockException failure(CompletableFuture<?> future) {
        assertTrue(future.isDone(), "still running");
        try {
            future.join();
        } catch (CompletionException e) {
            return (LockException) e.getCause();
        }
        throw new AssertionError("completed normally: " + future.join());
    }
}
