package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LocalHandOff;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.lettuce.core.RedisException;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The edges of a cohort, each on a scripted Redis side: outcomes the cohort does not learn, a doubt
 * that comes while its try is in flight, a hold lost in the window of its recording, grants the
 * acquire loop refused, and the order of the withdrawal of the client's mark with every try.
 */
class CohortEdgesTest {

    private static final LeaseTerm WATCHDOG = LeaseTerm.watchdog(Duration.ofSeconds(30));
    private static final LeaseTerm FIXED = new LeaseTerm(10_000, false);
    private static final Object LOCK = "lock";

    private final ManualTicker ticker = new ManualTicker();
    private final ManualTimer timer = ManualTimer.manual(ticker);
    private final Redis redis = new Redis();
    private final Cohorts cohorts = new Cohorts(LocalHandOff.DEFAULT);

    private Cohort cohort() {
        return cohorts.of(LOCK, (self, block) -> redis);
    }

    /** A try whose "busy" answer is lost may have marked the client: the mark is withdrawn when the attempt leaves. */
    @Test
    void aTryWhoseBusyAnswerWasLostWithdrawsItsMarkWhenTheAttemptLeaves() {
        CompletableFuture<TryResult> tried = cohort().tryAcquire(1, WATCHDOG, 0);
        // acquire.lua ran, found the lock held, SET the waiting mark; the answer timed out.
        redis.tries.remove(0).completeExceptionally(LockExceptions.timedOut("lock", Duration.ofSeconds(3), null));
        assertTrue(tried.isCompletedExceptionally());
        cohorts.attemptLeft(LOCK, 1); // the acquire loop's fail() -> abandon
        assertTrue(redis.calls.contains("unmark"), "a withdrawal for a mark Redis may hold");
        assertEquals(0, cohorts.size(), "then the cohort retired");
    }

    /** A try deferred behind the cohort's try that fails is told the failure: Redis answered neither. */
    @Test
    void aTryDeferredBehindAFailedTryIsToldTheFailure() {
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        CompletableFuture<TryResult> deferred = cohort().tryAcquire(2, WATCHDOG, 0);
        assertFalse(deferred.isDone(), "deferred behind the try in flight");
        redis.tries.remove(0).completeExceptionally(LockExceptions.unreachable("lock",
                new RedisException("Currently not connected. Commands are rejected.")));
        assertTrue(first.isCompletedExceptionally());
        assertFalse(deferred.join().acquired());
        assertTrue(deferred.join().sharedFailure() != null, "not a plain busy, which counts as Redis answering");
        assertEquals(List.of("try"), redis.calls, "no Redis call of its own");
    }

    /** A withdrawal that fails is sent again a command timeout later; the cohort stays till then. */
    @Test
    void aFailedWithdrawalIsTriedAgain() {
        CompletableFuture<TryResult> tried = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.tries.remove(0).complete(TryResult.busy(30_000));
        assertFalse(tried.join().acquired());
        redis.unmarking = CompletableFuture.failedFuture(LockExceptions.timedOut("lock", Duration.ofSeconds(3), null));
        cohorts.attemptLeft(LOCK, 1);
        assertEquals(List.of("try", "unmark"), redis.calls);
        assertEquals(1, cohorts.size(), "kept while the mark may still stand in Redis");
        redis.unmarking = CompletableFuture.completedFuture(1L);
        timer.advance(Duration.ofSeconds(3));
        assertEquals(List.of("try", "unmark", "unmark"), redis.calls);
        assertEquals(0, cohorts.size(), "retired once withdrawn");
    }

    /** A fixed-lease try, which marks the client too, goes after the withdrawal as the cohort's does. */
    @Test
    void aFixedLeaseTryGoesAfterTheWithdrawal() {
        CompletableFuture<TryResult> busy = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.tries.remove(0).complete(TryResult.busy(30_000));
        assertFalse(busy.join().acquired());
        redis.unmarking = new CompletableFuture<>();
        cohorts.attemptLeft(LOCK, 1); // withdrawal sent, unanswered

        cohort().tryAcquire(2, FIXED, 0);
        assertEquals(List.of("try", "unmark"), redis.calls, "the fixed-lease try waits for the withdrawal");
        cohort().tryAcquire(3, WATCHDOG, 0);
        assertEquals(List.of("try", "unmark"), redis.calls, "and so does the cohort's");
        redis.unmarking.complete(1L);
        assertEquals(4, redis.calls.size(), "both sent once the withdrawal was answered: " + redis.calls);
        assertTrue(redis.calls.subList(2, 4).containsAll(List.of("own try", "try")), "" + redis.calls);
    }

    /** A connection lost while the cohort's try is in flight is a doubt on the hold it grants. */
    @Test
    void aConnectionLostWhileTheTryIsInFlightStopsHandOffs() {
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.notices.connectionLost(); // state ACQUIRING: ignored
        redis.grant(100);
        assertTrue(first.join().acquired());
        assertTrue(cohort().waiterJoined(2));
        cohort().release(1);
        assertFalse(cohort().tryAcquire(2, WATCHDOG, 0).isDone(), "not handed off: it goes to Redis");
        assertEquals(List.of("requeue"), redis.releases);
    }

    /** A second attempt of the same owner that found the cohort's try in flight tries again at once, and re-enters. */
    @Test
    void aSecondAttemptOfTheSameOwnerDeferredBehindItsOwnGrantReentersAtOnce() {
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        CompletableFuture<TryResult> second = cohort().tryAcquire(1, WATCHDOG, 0); // deferred
        redis.grant(100);
        assertTrue(first.join().acquired());
        TryResult answer = second.join();
        assertFalse(answer.acquired());
        assertEquals(0, answer.waitMillis(), "told to try again at once, not to wait for its own hold");
        assertTrue(cohort().tryAcquire(1, WATCHDOG, 0).join().acquired(), "and its next try re-enters");
    }

    /** A passed hold that a waiter may not take (a doubt) goes to Redis marking the client, whose waiter still waits. */
    @Test
    void aPassedHoldEndedByATryThatMayNotTakeItIsRequeued() {
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.grant(100);
        assertTrue(first.join().acquired());
        assertTrue(cohort().waiterJoined(2));
        cohort().release(1); // PASSING: owner 2 is signalled
        redis.notices.connectionLost(); // a doubt: no local grant
        CompletableFuture<TryResult> second = cohort().tryAcquire(2, WATCHDOG, 0);
        assertEquals(List.of("requeue"), redis.releases, "the client's own waiter still waits");
        assertFalse(second.join().acquired());
    }

    /**
     * A local grant whose new Hold is lost after LockHolds.admit checked isLost() but before
     * HoldLoss.started() registered its LossHandler (e.g. the Hold's lease check firing at once
     * because the admit ran after the grant's confirmed lease): the cohort never hears of it and
     * stays HELD by an owner whose attempt then fails with LeaseLostException and never releases.
     */
    @Test
    void aHoldLostBeforeTheCohortRegisteredItsLossHandlerEndsTheCohort() {
        io.latchkey.spi.HoldRegistry holds = new io.latchkey.spi.HoldRegistry(timer, ticker);
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.grant(100);
        TryResult.Grant grant1 = first.join().grant();
        grant1.start(holds.granted(LOCK, "lock", 1, grant1.fencingToken(), grant1.confirmedUntilNanos()));
        assertTrue(cohort().waiterJoined(2));
        cohort().release(1);
        TryResult.Grant grant2 = cohort().tryAcquire(2, WATCHDOG, 0).join().grant();
        Hold hold2 = holds.granted(LOCK, "lock", 2, grant2.fencingToken(), grant2.confirmedUntilNanos());
        assertFalse(hold2.isLost()); // LockHolds.admit: not lost -> start
        hold2.lose("its lease ran out before it was released or renewed", true); // the window
        grant2.start(hold2); // HoldLoss.started: current, registers the handler too late
        cohort().waiterLeft(2);
        // AcquireAttempt.afterTry now sees hold2.isLost() and fails the attempt: owner 2 never unlocks.
        assertTrue(cohort().localHold(2) == null, "the cohort is not left held by an owner that does not know it");
        assertFalse(cohort().tryAcquire(3, WATCHDOG, 0).isDone(), "the next owner goes to Redis");
    }

    @Test
    void aLocalGrantTheAcquireLoopRefusedIsGivenBackNotLeftHeld() {
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.grant(100);
        assertTrue(first.join().acquired());
        assertTrue(cohort().waiterJoined(2));
        assertTrue(cohort().release(1).isDone());

        TryResult handedOff = cohort().tryAcquire(2, WATCHDOG, 0).join();
        assertTrue(handedOff.acquired(), "passed on to the waiter");
        assertEquals(101, handedOff.grant().fencingToken());
        // The owner's hold was given up for lost while its try was in flight: LockHolds.admit
        // refuses the grant instead of starting it.
        handedOff.grant().refuse();
        cohort().waiterLeft(2);

        assertEquals(List.of("release"), redis.releases, "the refused level was released in Redis");
        assertFalse(cohort().tryAcquire(3, WATCHDOG, 0).isDone(), "the next owner goes to Redis, not blocked behind nobody");
    }

    @Test
    void aRefusedReentryGivesBackOnlyItsOwnLevel() {
        CompletableFuture<TryResult> first = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.grant(100);
        assertTrue(first.join().acquired());
        TryResult reentry = cohort().tryAcquire(1, WATCHDOG, 100).join();
        assertTrue(reentry.acquired());

        reentry.grant().refuse();

        assertEquals(1, cohort().localHold(1).levels(), "the outer level stays");
        assertTrue(cohort().release(1).isDone());
        assertEquals(List.of("release"), redis.releases);
    }

    @Test
    void theWithdrawalOfTheClientsMarkGoesToRedisBeforeTheCohortsNextTry() {
        CompletableFuture<TryResult> busy = cohort().tryAcquire(1, WATCHDOG, 0);
        redis.busy();
        assertFalse(busy.join().acquired(), "another client holds: the try marked this client");
        redis.unmarking = new CompletableFuture<>();
        cohort().attemptLeft(1); // tryLock() gave up: the withdrawal is sent, not yet answered

        CompletableFuture<TryResult> next = cohort().tryAcquire(2, WATCHDOG, 0);
        assertEquals(List.of("try", "unmark"), redis.calls, "the next try waits for the withdrawal, or it could delete the mark its own try set");
        redis.unmarking.complete(1L);
        assertEquals(List.of("try", "unmark", "try"), redis.calls);
        redis.grant(200);
        assertTrue(next.join().acquired());
    }

    private final class Redis implements CohortRedis {
        final List<CompletableFuture<TryResult>> tries = new ArrayList<>();
        final List<String> releases = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        CompletableFuture<Long> unmarking = CompletableFuture.completedFuture(0L);
        Notices notices;
        HoldReports reports;
        int checks;

        void busy() {
            tries.remove(0).complete(TryResult.busy(30_000));
        }

        void grant(long token) {
            long until = ticker.read() + Duration.ofSeconds(30).toNanos();
            tries.remove(0).complete(TryResult.acquired(new TryResult.Grant() {
                @Override
                public long fencingToken() {
                    return token;
                }

                @Override
                public long confirmedUntilNanos() {
                    return until;
                }

                @Override
                public void start(Hold hold) {
                }
            }));
        }

        @Override public String lockName() { return "lock"; }
        @Override public String kind() { return "plain"; }
        @Override public String client() { return "client"; }
        @Override public Ticker ticker() { return ticker; }
        @Override public Timer timer() { return timer; }
        @Override public Duration commandTimeout() { return Duration.ofSeconds(3); }

        @Override
        public CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease) {
            calls.add("try");
            CompletableFuture<TryResult> answer = new CompletableFuture<>();
            tries.add(answer);
            return answer;
        }

        @Override
        public CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken) {
            calls.add("own try");
            return new CompletableFuture<>();
        }

        @Override public CompletableFuture<Void> releaseOwnHold(long owner) { return CompletableFuture.completedFuture(null); }

        @Override
        public CompletableFuture<Void> releaseCohortHold(boolean requeue) {
            releases.add(requeue ? "requeue" : "release");
            return CompletableFuture.completedFuture(null);
        }

        @Override public void endCohortHold(long token) { }

        @Override
        public CompletableFuture<?> unmark() {
            calls.add("unmark");
            return unmarking;
        }

        @Override public CompletableFuture<String> readMark() { return CompletableFuture.completedFuture(null); }

        @Override
        public CompletableFuture<Boolean> holdsCohortHold(long token) {
            checks++;
            return CompletableFuture.completedFuture(true);
        }

        @Override public void renew(HoldReports reports) { this.reports = reports; }
        @Override public void stopRenewing() { }

        @Override
        public Runnable observe(Notices notices) {
            this.notices = notices;
            return () -> { };
        }

        @Override public void handedOff(long from, long to, long token) { }
    }
}
