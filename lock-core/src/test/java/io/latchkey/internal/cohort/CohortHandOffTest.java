package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.cohort.CohortBench.Waiter;
import io.latchkey.internal.cohort.ScriptedCohortRedis.HandOff;
import io.latchkey.internal.cohort.ScriptedCohortRedis.OwnTry;
import io.latchkey.spi.Hold;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cohort passing its Redis hold from owner to owner of one client, below Redis: when a release
 * passes the hold on and when it goes to Redis, the guard on a passed hold, re-entries, fixed
 * leases, and the bounds while another client waits (rule 2: the mark read every half bound, a
 * whole bound past the last answer waits for it). Bounds: 4 hand-offs, 50 ms.
 */
class CohortHandOffTest {

    private static final long A = 1;
    private static final long B = 2;
    private static final long C = 3;
    private static final long LEASE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final CohortBench bench = new CohortBench();
    private final ScriptedCohortRedis redis = bench.redis;

    @Test
    void aReleaseWithALocalWaiterPassesTheHoldOnWithTheNextTokenAndNoRedisCall() {
        bench.takeInRedis(A, 1);
        TryResult busy = bench.toldBusy(B);
        assertEquals(30_000, busy.waitMillis(), "B waits at most for A's lease as Redis confirmed it");
        Waiter waiter = bench.join(B);
        CompletableFuture<Void> parked = waiter.park();

        CompletableFuture<Void> released = bench.release(A);

        assertTrue(released.isDone(), "a hand-off needs no Redis call");
        assertTrue(parked.isDone(), "the hand-off signalled the local waiter");
        assertTrue(redis.releases.isEmpty());
        assertTrue(redis.ownReleases.isEmpty(), "A held through the cohort, not a hold of its own");

        CompletableFuture<TryResult> taken = bench.tryFor(B);
        assertTrue(taken.isDone(), "taken without Redis");
        assertEquals(LEASE_NANOS, taken.join().grant().confirmedUntilNanos(), "the lease of the cohort's hold");
        Hold hold = bench.record(B, taken);
        assertEquals(2, hold.token(), "the next token of the cohort's block");
        assertEquals(List.of(new HandOff(A, B, 2)), redis.handOffs);
        assertTrue(redis.cohortTries.isEmpty());
        assertEquals(1, bench.timer.pending(), "only B's lease is watched: the guard on the passed hold went when B took it");
    }

    @Test
    void aPassedHoldThatNobodyTakesWithinTheGuardIsReleasedInRedis() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        Waiter waiter = bench.join(B);
        waiter.park();
        bench.release(A);
        CompletableFuture<Void> parkedAgain = waiter.park(); // B is slow to come for it

        bench.timer.advance(Duration.ofMillis(9));
        assertTrue(redis.releases.isEmpty(), "the guard gives a local waiter 10 ms");
        bench.timer.advance(Duration.ofMillis(1));
        assertEquals(1, redis.releases.size());
        assertTrue(redis.releases.peek().requeue(), "B still waits: the release marks its client");

        assertFalse(parkedAgain.isDone());
        redis.released();
        assertTrue(parkedAgain.isDone(), "once released in Redis, the local waiters try Redis");
        assertNull(redis.notices, "a free cohort no longer listens to the lock's channel");
        bench.tryFor(B);
        assertEquals(1, redis.cohortTries.size());
    }

    @Test
    void aLastReleaseWithNoWaiterGoesToRedisAndCompletesWithIt() {
        bench.takeInRedis(A, 1);
        Cohort cohort = bench.existing();
        long signals = cohort.queue().sequence();

        CompletableFuture<Void> released = bench.release(A);

        assertFalse(released.isDone(), "the release completes with Redis's answer");
        assertEquals(1, redis.releases.size());
        assertFalse(redis.releases.peek().requeue(), "nobody of this client waits");
        assertTrue(redis.ownReleases.isEmpty());
        redis.released();
        assertTrue(released.isDone());
        assertEquals(signals, cohort.queue().sequence(), "no local waiter to wake");
        assertEquals(1, redis.observationsStopped);
        assertEquals(0, bench.cohorts.size(), "idle: the cohort left the registry");
    }

    @Test
    void aReentryIsCountedInTheCohortAndOnlyTheLastReleaseGoesToRedis() {
        bench.takeInRedis(A, 1);

        CompletableFuture<TryResult> again = bench.tryFor(A);
        assertTrue(again.isDone(), "a re-entry needs no Redis call");
        assertEquals(1, again.join().grant().fencingToken());
        assertEquals(LEASE_NANOS, again.join().grant().confirmedUntilNanos());
        bench.record(A, again);
        assertTrue(redis.cohortTries.isEmpty());
        assertEquals(2, bench.existing().localHold(A).levels());
        assertNull(bench.existing().localHold(B), "B holds nothing here");

        CompletableFuture<Void> first = bench.release(A);
        assertTrue(first.isDone());
        assertTrue(redis.releases.isEmpty());
        assertEquals(1, bench.existing().localHold(A).levels());

        bench.release(A);
        assertEquals(1, redis.releases.size());
    }

    @Test
    void aReentryWithTheCohortsTokenStaysLocalAndOneWithAnotherTokenGoesToRedis() {
        bench.takeInRedis(A, 1);

        CompletableFuture<TryResult> local = bench.tryAcquire(A, ScriptedCohortRedis.WATCHDOG, 1);
        assertTrue(local.isDone());
        assertTrue(local.join().acquired());

        CompletableFuture<TryResult> own = bench.tryAcquire(A, ScriptedCohortRedis.WATCHDOG, 7);
        assertFalse(own.isDone(), "a hold of A's own, token 7, is Redis's to grant");
        OwnTry sent = redis.ownTries.remove();
        assertEquals(A, sent.owner());
        assertEquals(7, sent.heldToken());
    }

    @Test
    void aFixedLeaseTryWhileTheCohortHoldsSendsTheNextReleaseToRedis() {
        bench.takeInRedis(A, 1);

        CompletableFuture<TryResult> fixed = bench.tryFixed(B);
        assertFalse(fixed.isDone(), "only Redis grants a fixed lease");
        OwnTry sent = redis.ownTries.remove();
        assertEquals(B, sent.owner());
        assertFalse(sent.lease().renewed());
        sent.answer().complete(TryResult.busy(30_000));
        bench.join(B).park();

        bench.release(A);

        assertTrue(redis.handOffs.isEmpty(), "no local successor would extend B's hold beyond its lease");
        assertEquals(1, redis.releases.size());
        assertTrue(redis.releases.peek().requeue(), "B still waits: the release marks its client");
    }

    @Test
    void aFixedLeaseTryWhileTheHoldIsPassedOnReleasesItInRedisAtOnce() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.join(B).park();
        bench.release(A);
        assertTrue(redis.releases.isEmpty(), "passed on to B");

        bench.tryFixed(C);

        assertEquals(1, redis.ownTries.size());
        assertEquals(1, redis.releases.size(), "C's fixed lease goes through Redis, so the passed hold goes there first");
        assertEquals(0, bench.timer.pending(), "the guard on the passed hold is cancelled");
    }

    @Test
    void aTryWhenThePassedHoldsLeaseIsTooShortReleasesItAndWaitsForThatRelease() {
        CompletableFuture<TryResult> tried = bench.tryFor(A);
        long until = TimeUnit.MILLISECONDS.toNanos(105); // the command timeout (100 ms) and 5 ms
        redis.cohortTries.remove().complete(TryResult.acquired(ScriptedCohortRedis.grantOf(1, until, false)));
        bench.record(A, tried);
        bench.toldBusy(B);
        bench.join(B).park();
        bench.release(A);
        assertTrue(redis.releases.isEmpty(), "passed on: 5 ms more than the margin were left");

        bench.timer.advance(Duration.ofMillis(6));
        CompletableFuture<TryResult> late = bench.tryFor(B);

        assertFalse(late.isDone(), "too little lease left to take: B waits for the release");
        assertEquals(1, redis.releases.size());
        redis.released();
        assertTrue(late.isDone());
        assertFalse(late.join().acquired());
        assertEquals(0, late.join().waitMillis(), "B tries Redis again at once");
    }

    @Test
    void theHandOffsReadTheMarkEveryHalfBoundAndWaitForItsAnswerAWholeBoundPastTheLast() {
        bench.takeInRedis(A, 1);
        bench.handOff(A, B);
        bench.handOff(B, A);
        assertTrue(redis.markReads.isEmpty(), "two hand-offs so far: the grant's answer still counts");
        bench.handOff(A, B);
        assertEquals(1, redis.markReads.size(), "half the bound of 4: the mark is read");
        bench.handOff(B, A);
        assertEquals(1, redis.markReads.size(), "one read at a time");

        bench.toldBusy(B);
        Waiter waiter = bench.join(B);
        CompletableFuture<Void> parked = waiter.park();
        bench.release(A);

        assertFalse(parked.isDone(), "4 hand-offs past the grant's answer: nothing passes before the read is answered");
        assertFalse(bench.tryFor(B).join().acquired());
        redis.markReads.remove().complete(null);
        assertTrue(parked.isDone(), "nobody else waits: the hold goes on to B");
        assertEquals(6, bench.record(B, bench.tryFor(B)).token());
        assertTrue(redis.releases.isEmpty());
    }

    @Test
    void aReadOfTheMarkThatNamesAnotherClientEndsTheHandOffsWithARequeue() {
        Waiter waiter = passUntilTheHoldWaitsForTheMark();
        bench.toldBusy(C); // C has not decided yet whether to wait

        redis.markReads.remove().complete(ScriptedCohortRedis.OTHER_CLIENT);

        assertEquals(1, redis.releases.size(), "4 hand-offs while another client waits: the bound is reached");
        assertTrue(redis.releases.peek().requeue(), "B still waits: the release marks its client");
        redis.released();
        waiter.close();
        assertTrue(redis.unmarks.isEmpty(), "C was told busy: the client's claim stands for it");
        bench.attemptLeft(C);
        assertEquals(1, redis.unmarks.size(), "the client's last attempt left: its mark is withdrawn");
    }

    @Test
    void aFailedReadOfTheMarkTellsNothingAndTheNextHandOffReadsAgain() {
        bench.takeInRedis(A, 1);
        bench.handOff(A, B);
        bench.handOff(B, A);
        bench.handOff(A, B);
        redis.markReads.remove().completeExceptionally(new IllegalStateException("the read timed out"));
        bench.handOff(B, A);

        bench.toldBusy(B);
        CompletableFuture<Void> parked = bench.join(B).park();
        bench.release(A);

        assertEquals(1, redis.markReads.size(), "read again, the last read having failed");
        assertFalse(parked.isDone(), "nothing heard since the grant, 4 hand-offs ago");
        redis.markReads.remove().complete(null);
        assertTrue(parked.isDone());
    }

    @Test
    void aReadOfTheMarkAnsweredWhileAnOwnerHoldsBoundsTheNextHandOffs() {
        bench.takeInRedis(A, 1);
        bench.handOff(A, B);
        bench.handOff(B, A);
        bench.handOff(A, B); // the mark is read as B takes token 4
        redis.markReads.remove().complete(ScriptedCohortRedis.OTHER_CLIENT);
        bench.handOff(B, A);
        bench.toldBusy(B);
        bench.join(B).park();

        bench.release(A);

        assertEquals(1, redis.releases.size(), "4 hand-offs while another client waits");
        assertTrue(redis.releases.peek().requeue());
    }

    @Test
    void aLateAnswerOfAReadDuringTheLastHoldTellsNothingAboutTheNext() {
        bench.takeInRedis(A, 1);
        bench.handOff(A, B);
        bench.handOff(B, A);
        bench.handOff(A, B); // the mark is read as B takes token 4
        bench.toldBusy(C); // keeps the cohort while its hold goes back to Redis
        bench.release(B);
        redis.released();
        CompletableFuture<TryResult> next = bench.tryFor(C);

        redis.markReads.remove().complete(ScriptedCohortRedis.OTHER_CLIENT);
        redis.grant(1025);
        bench.record(C, next);
        bench.timer.advance(Duration.ofMillis(60));

        bench.handOff(C, A);
        assertTrue(redis.releases.isEmpty(), "the new hold's grant told of no other client");
    }

    @Test
    void anotherClientsWaitNoticeBoundsTheHandOffsByTime() {
        bench.takeInRedis(A, 1);
        redis.notices.notice("!wait:" + ScriptedCohortRedis.OTHER_CLIENT);
        bench.timer.advance(Duration.ofMillis(60));
        bench.toldBusy(B);
        bench.join(B).park();

        bench.release(A);

        assertTrue(redis.handOffs.isEmpty(), "held 60 ms while another client waits, more than the bound of 50");
        assertEquals(1, redis.releases.size());
        assertTrue(redis.releases.peek().requeue());
    }

    @Test
    void theClientsOwnWaitNoticeDoesNotBoundItsHandOffs() {
        bench.takeInRedis(A, 1);
        redis.notices.notice("!wait:" + ScriptedCohortRedis.CLIENT);
        bench.timer.advance(Duration.ofMillis(60));

        bench.handOff(A, B);

        assertTrue(redis.releases.isEmpty());
    }

    @Test
    void aNewRedisHoldForgetsTheOtherClientHeardOfDuringTheLastOne() {
        bench.takeInRedis(A, 1);
        redis.notices.notice("!wait:" + ScriptedCohortRedis.OTHER_CLIENT);
        bench.toldBusy(B); // keeps the cohort while the hold goes back to Redis
        bench.release(A);
        redis.released();
        bench.takeInRedis(B, 1025);
        bench.timer.advance(Duration.ofMillis(60));

        bench.handOff(B, C);

        assertTrue(redis.releases.isEmpty(), "no other client is known to wait for the new hold");
    }

    /** Four hand-offs, the mark read after the second, unanswered; A releases with B waiting. */
    private Waiter passUntilTheHoldWaitsForTheMark() {
        bench.takeInRedis(A, 1);
        bench.handOff(A, B);
        bench.handOff(B, A);
        bench.handOff(A, B);
        bench.handOff(B, A);
        bench.toldBusy(B);
        Waiter waiter = bench.join(B);
        waiter.park();
        bench.release(A);
        assertTrue(redis.releases.isEmpty());
        assertEquals(1, redis.markReads.size());
        return waiter;
    }
}
