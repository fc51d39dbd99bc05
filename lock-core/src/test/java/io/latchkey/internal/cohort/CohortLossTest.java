package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.cohort.CohortBench.Waiter;
import io.latchkey.spi.CohortRedis.HoldReports;
import io.latchkey.spi.Hold;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cohort's hold found gone or doubted, below Redis (rules 3 and 5): what the watchdog reports,
 * {@code !force} notices checked in Redis, lost connections, leases that ran out, force-unlocks,
 * grants refused or recorded too late, queries, and the client closing.
 */
class CohortLossTest {

    private static final long A = 1;
    private static final long B = 2;
    private static final long C = 3;

    private final CohortBench bench = new CohortBench();
    private final ScriptedCohortRedis redis = bench.redis;

    // ---- found gone --------------------------------------------------------------------------

    @Test
    void aRenewalThatFindsTheHoldGoneEndsTheCohortLosesTheOwnersHoldAndWakesTheWaiters() {
        Hold hold = bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        CompletableFuture<Void> parked = bench.join(B).park();

        redis.reports().lost();

        assertTrue(hold.isLost());
        assertTrue(hold.lossReason().contains("renewal"), hold.lossReason());
        assertEquals(1, redis.renewalsStopped);
        assertNull(redis.notices);
        assertTrue(parked.isDone(), "every local waiter tries Redis again");
        assertTrue(redis.endedHolds.isEmpty(), "Redis no longer has it: nothing to end");
        bench.tryFor(B);
        assertEquals(1, redis.cohortTries.size(), "a new hold, with new tokens");
    }

    @Test
    void aLossReportedWhileTheHoldIsBeingReleasedChangesNothing() {
        bench.takeInRedis(A, 1);
        bench.release(A);

        redis.reports().lost();

        assertEquals(0, redis.renewalsStopped);
        CompletableFuture<TryResult> next = bench.tryFor(B);
        assertFalse(next.isDone());
        assertTrue(redis.cohortTries.isEmpty(), "B's try waits for the release in flight");
    }

    @Test
    void aPassedHoldFoundGoneEndsWithItsGuardCancelled() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.join(B).park();
        bench.release(A);
        assertEquals(1, bench.timer.pending(), "the guard on the passed hold");

        redis.reports().lost();

        assertEquals(0, bench.timer.pending());
    }

    @Test
    void aHoldWhoseLeaseRanOutUnrenewedIsEndedInRedisWithTheCohort() {
        Hold hold = bench.takeInRedis(A, 1);

        bench.timer.advance(Duration.ofSeconds(30));

        assertTrue(hold.isLost());
        assertEquals(List.of(1L), redis.endedHolds, "Redis may still have it: ended before the cohort's next call");
        assertEquals(1, redis.renewalsStopped);
        bench.tryFor(B);
        assertEquals(1, redis.cohortTries.size());
    }

    @Test
    void reportsOfAnEarlierHoldNeitherEndNorExtendTheCurrentOne() {
        bench.takeInRedis(A, 1);
        HoldReports earlier = redis.reports();
        bench.toldBusy(C); // keeps the cohort while its hold goes back to Redis
        bench.release(A);
        redis.released();
        Hold current = bench.takeInRedis(B, 1025);

        earlier.lost();
        assertTrue(current.isHeld());
        earlier.renewed(0, TimeUnit.SECONDS.toNanos(100));
        bench.timer.advance(Duration.ofSeconds(30));

        assertTrue(current.isLost(), "B's lease is its own hold's, renewed by its own reports only");
        assertEquals(List.of(1025L), redis.endedHolds);
    }

    @Test
    void aRenewalMovesTheOwnersLeaseAndTheWaitBoundOn() {
        Hold hold = bench.takeInRedis(A, 1);
        bench.timer.advance(Duration.ofSeconds(20));

        redis.reports().renewed(TimeUnit.SECONDS.toNanos(20), TimeUnit.SECONDS.toNanos(50));
        bench.timer.advance(Duration.ofSeconds(15));

        assertTrue(hold.isHeld(), "renewed until 50 s");
        assertEquals(15_000, bench.toldBusy(B).waitMillis());
    }

    @Test
    void aForceUnlockByThisClientEndsTheCohort() {
        Hold hold = bench.takeInRedis(A, 1);

        bench.existing().losses().forced();

        assertTrue(hold.isLost());
        assertTrue(hold.lossReason().contains("force-unlocked"), hold.lossReason());
        bench.tryFor(B);
        assertEquals(1, redis.cohortTries.size());
    }

    @Test
    void aGrantRecordedAfterTheCohortLostItsHoldIsLostAtOnce() {
        CompletableFuture<TryResult> tried = bench.tryFor(A);
        redis.grant(1);
        redis.reports().lost();

        Hold hold = bench.record(A, tried);

        assertTrue(hold.isLost());
    }

    @Test
    void aQueryConfirmsTheLevelsInRedisAndEndsTheCohortIfTheHoldIsGone() {
        Hold hold = bench.takeInRedis(A, 1);
        bench.record(A, bench.tryFor(A));

        CompletableFuture<Integer> levels = bench.existing().localHold(A).confirmed();
        assertEquals(1, redis.holdChecks.peek().token());
        redis.holdChecks.remove().answer().complete(true);
        assertEquals(2, levels.join());
        assertTrue(hold.isHeld());

        CompletableFuture<Integer> again = bench.existing().localHold(A).confirmed();
        redis.holdChecks.remove().answer().complete(false);
        assertEquals(0, again.join());
        assertTrue(hold.isLost());
        assertTrue(hold.lossReason().contains("query"), hold.lossReason());
    }

    @Test
    void aFirstWaiterAsksRedisForTheHoldAndAHoldFoundGoneSendsItToRedis() {
        // The client heard the lock's channel only from B's subscription on: a force-unlock's
        // notice before it was missed, and B would wait for the next renewal (10 s by default).
        Hold hold = bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        CompletableFuture<Void> parked = bench.joinAsking(B).park();
        assertEquals(1, redis.holdChecks.size(), "the first waiter has Redis asked");
        assertEquals(1, redis.holdChecks.peek().token());
        bench.toldBusy(C);
        bench.joinAsking(C);
        assertEquals(1, redis.holdChecks.size(), "the channel was heard since the first waiter joined");

        redis.holdChecks.remove().answer().complete(false);

        assertTrue(hold.isLost());
        assertTrue(parked.isDone(), "every local waiter tries Redis again");
        bench.tryFor(B);
        assertEquals(1, redis.cohortTries.size(), "a new hold, with new tokens");
    }

    @Test
    void aFirstWaitersQuestionStopsNoHandOffAndAHoldFoundThereGoesOn() {
        Hold hold = bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        CompletableFuture<Void> parked = bench.joinAsking(B).park();

        bench.release(A);
        assertTrue(parked.isDone(), "passed on before Redis answered: nothing suggests the hold is gone");
        Hold next = bench.record(B, bench.tryFor(B));
        redis.holdChecks.remove().answer().complete(true);

        assertFalse(hold.isLost());
        assertTrue(next.isHeld());
        assertTrue(redis.releases.isEmpty());
    }

    @Test
    void aWaiterBehindNoRedisHoldAsksNothing() {
        bench.tryFor(A);
        bench.tryFor(B);
        bench.joinAsking(B);

        assertTrue(redis.holdChecks.isEmpty(), "the cohort's try is in Redis: its answer tells");
    }

    // ---- doubted -----------------------------------------------------------------------------

    @Test
    void aForceNoticeStopsHandOffsUntilRedisAnswers() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.join(B).park();

        redis.notices.notice("!force:1");
        assertEquals(1, redis.holdChecks.size(), "a notice is a hint: Redis is asked");
        assertEquals(1, redis.holdChecks.peek().token());
        bench.release(A);

        assertTrue(redis.handOffs.isEmpty());
        assertEquals(1, redis.releases.size());
    }

    @Test
    void aForceNoticeForAHoldRedisStillHasLetsTheHandOffsGoOn() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        CompletableFuture<Void> parked = bench.join(B).park();
        redis.notices.notice("!force:1");

        redis.holdChecks.remove().answer().complete(true);
        bench.release(A);

        assertTrue(parked.isDone(), "a forged notice: the hold is passed on");
        assertTrue(redis.releases.isEmpty());
    }

    @Test
    void aForceNoticeConfirmedByAReadLeavesTheOwnersLeaseAsItWas() {
        Hold hold = bench.takeInRedis(A, 1);
        redis.notices.notice("!force:1");
        redis.holdChecks.remove().answer().complete(true);

        bench.timer.advance(Duration.ofSeconds(30));

        assertTrue(hold.isLost(), "the read found the hold, but did not extend its lease");
    }

    @Test
    void aForceNoticeThatRedisConfirmsEndsTheCohort() {
        Hold hold = bench.takeInRedis(A, 1);
        redis.notices.notice("!force:1");

        redis.holdChecks.remove().answer().complete(false);

        assertTrue(hold.isLost());
        assertTrue(hold.lossReason().contains("force-unlocked"), hold.lossReason());
    }

    @Test
    void aForceNoticeOfAnotherHoldOrWithoutATokenIsIgnored() {
        bench.takeInRedis(A, 1);

        redis.notices.notice("!force:1025");
        redis.notices.notice("!force:not-a-token");

        assertTrue(redis.holdChecks.isEmpty());
        bench.handOff(A, B);
        assertTrue(redis.releases.isEmpty());
    }

    @Test
    void aForceNoticeWhileTheHoldIsPassedOnStopsItsTaking() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.join(B).park();
        bench.release(A);

        redis.notices.notice("!force:1");
        CompletableFuture<TryResult> tried = bench.tryFor(B);

        assertEquals(1, redis.holdChecks.size());
        assertFalse(tried.isDone(), "not taken while in doubt: B waits for the release in Redis");
        assertEquals(1, redis.releases.size());
    }

    @Test
    void aLostConnectionStopsHandOffsUntilARenewalSentSinceConfirmsTheHold() {
        bench.takeInRedis(A, 1);
        bench.timer.advance(Duration.ofSeconds(1));
        redis.notices.connectionLost();
        assertTrue(redis.holdChecks.isEmpty(), "the next renewal tells");
        bench.toldBusy(B);
        CompletableFuture<Void> parked = bench.join(B).park();

        redis.reports().renewed(TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(31));
        bench.release(A);

        assertTrue(parked.isDone(), "a renewal sent at the doubt confirms the hold");
        assertTrue(redis.releases.isEmpty());
    }

    @Test
    void aLostConnectionStopsHandOffsThatARenewalSentBeforeItDoesNotResume() {
        bench.takeInRedis(A, 1);
        bench.timer.advance(Duration.ofSeconds(1));
        redis.notices.connectionLost();
        bench.toldBusy(B);
        bench.join(B).park();

        redis.reports().renewed(TimeUnit.MILLISECONDS.toNanos(999), TimeUnit.SECONDS.toNanos(31));
        bench.release(A);

        assertTrue(redis.handOffs.isEmpty());
        assertEquals(1, redis.releases.size());
    }

    @Test
    void aFailedRenewalStopsHandOffs() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.join(B).park();

        redis.reports().failed();
        bench.release(A);

        assertTrue(redis.handOffs.isEmpty());
        assertEquals(1, redis.releases.size());
    }

    // ---- refused grants ----------------------------------------------------------------------

    @Test
    void aRefusedReentryGivesItsLevelBack() {
        bench.takeInRedis(A, 1);

        bench.tryFor(A).join().grant().refuse();

        assertEquals(1, bench.existing().localHold(A).levels());
        bench.release(A);
        assertEquals(1, redis.releases.size(), "one release ends the hold");
    }

    @Test
    void aRefusedFirstGrantReleasesTheCohortsHold() {
        CompletableFuture<TryResult> tried = bench.tryFor(A);
        redis.grant(1);

        tried.join().grant().refuse();

        assertNull(bench.existing().localHold(A));
        assertEquals(1, redis.releases.size());
    }

    @Test
    void aRefusalOfAGrantTheCohortNoLongerHoldsChangesNothing() {
        CompletableFuture<TryResult> stale = bench.tryFor(A);
        redis.grant(1);
        bench.toldBusy(B); // keeps the cohort after its hold is lost
        redis.reports().lost();
        bench.takeInRedis(C, 1025);
        bench.record(C, bench.tryFor(C));

        stale.join().grant().refuse();

        assertEquals(2, bench.existing().localHold(C).levels());
        assertTrue(redis.releases.isEmpty());
        assertTrue(redis.ownReleases.isEmpty());
    }

    // ---- failures and closing ----------------------------------------------------------------

    @Test
    void aTryThatFailsInRedisFailsWithItsOwnCause() {
        CompletableFuture<TryResult> tried = bench.tryFor(A);
        IllegalStateException refused = new IllegalStateException("refused");

        redis.cohortTries.remove().completeExceptionally(refused);

        ExecutionException failure = assertThrows(ExecutionException.class, tried::get);
        assertSame(refused, failure.getCause());
    }

    @Test
    void closingTheClientWakesTheLocalWaitersAndFailsEveryTry() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        Waiter waiter = bench.join(B);
        CompletableFuture<Void> parked = waiter.park();

        bench.cohorts.close();

        assertTrue(parked.isDone());
        assertClientClosed(bench.tryFor(B));
    }

    @Test
    void aCohortMadeAfterTheClientClosedFailsItsTries() {
        bench.cohorts.close();

        assertClientClosed(bench.tryFor(A));
    }

    @Test
    void aGrantThatArrivesAfterTheClientClosedIsGivenBackInRedis() {
        CompletableFuture<TryResult> tried = bench.tryFor(A);
        bench.cohorts.close();

        redis.grant(1);

        assertClientClosed(tried);
        assertEquals(1, redis.releases.size(), "nothing would renew or release it");
        assertTrue(redis.renewing.isEmpty());
    }

    private static void assertClientClosed(CompletableFuture<TryResult> tried) {
        ExecutionException failure = assertThrows(ExecutionException.class, tried::get);
        assertInstanceOf(LockException.class, failure.getCause());
        assertTrue(failure.getCause().getMessage().contains("closed"), failure.getCause().getMessage());
    }
}
