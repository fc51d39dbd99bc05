package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.cohort.CohortBench.Waiter;
import io.latchkey.spi.TryResult;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A cohort's claim on the lock and its stay in the registry, below Redis (rule 6): tries that
 * share the answer of the cohort's try in flight, owners told "busy" who have not decided yet,
 * the client's waiting mark and its withdrawal once the client's last attempt has gone, and a
 * retired cohort that sends every call to the live one.
 */
class CohortClaimTest {

    private static final long A = 1;
    private static final long B = 2;
    private static final long C = 3;

    private final CohortBench bench = new CohortBench();
    private final ScriptedCohortRedis redis = bench.redis;

    @Test
    void triesWhileTheCohortsTryIsInFlightShareItsBusyAnswer() {
        CompletableFuture<TryResult> first = bench.tryFor(A);
        CompletableFuture<TryResult> second = bench.tryFor(B);
        assertEquals(1, redis.cohortTries.size(), "one try in Redis for the whole client");

        redis.busy(700);

        assertEquals(700, first.join().waitMillis());
        assertFalse(second.join().acquired());
        assertEquals(700, second.join().waitMillis(), "B waits as A does");
    }

    @Test
    void aTryDeferredBehindAGrantedTryWaitsForTheNewHoldsLease() {
        CompletableFuture<TryResult> first = bench.tryFor(A);
        CompletableFuture<TryResult> second = bench.tryFor(B);

        redis.grant(1);

        assertTrue(first.join().acquired());
        assertFalse(second.join().acquired());
        assertEquals(30_000, second.join().waitMillis(), "A's lease, which a release of A ends sooner");
    }

    @Test
    void aTryDeferredBehindAFailedTryIsToldToTryAgainAtOnce() {
        bench.tryFor(A);
        CompletableFuture<TryResult> second = bench.tryFor(B);

        redis.cohortTries.remove().completeExceptionally(new IllegalStateException("refused"));

        assertFalse(second.join().acquired());
        assertEquals(0, second.join().waitMillis());
    }

    @Test
    void deferredOwnersKeepTheClaimUntilEachHasDecided() {
        bench.tryFor(A);
        bench.tryFor(B);
        redis.busy(700); // marks the client

        bench.attemptLeft(A);
        assertTrue(redis.unmarks.isEmpty(), "B shared A's answer and has not decided yet");
        bench.attemptLeft(B);
        assertEquals(1, redis.unmarks.size());
    }

    @Test
    void anOwnerToldBusyKeepsTheCohortUntilItJoinsOrLeaves() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.release(A);
        redis.released();

        assertEquals(1, bench.cohorts.size(), "B was told busy and has not decided yet");
        bench.attemptLeft(B);
        assertEquals(0, bench.cohorts.size());
        assertTrue(redis.unmarks.isEmpty(), "the client never marked itself");
    }

    @Test
    void anOwnerToldBusyTwiceDecidesTwiceBeforeTheCohortLeaves() {
        bench.takeInRedis(A, 1);
        bench.toldBusy(B);
        bench.toldBusy(B);
        bench.release(A);
        redis.released();

        bench.attemptLeft(B);
        assertEquals(1, bench.cohorts.size());
        bench.attemptLeft(B);
        assertEquals(0, bench.cohorts.size());
    }

    @Test
    void aBusyAnswerFromRedisMarksTheClientAndItsLastAttemptLeavingWithdrawsTheMark() {
        CompletableFuture<TryResult> tried = bench.tryFor(A);
        assertNotNull(redis.notices, "the cohort listens to the lock's channel while its try is out");

        redis.busy(500);

        assertEquals(500, tried.join().waitMillis());
        assertNull(redis.notices, "a free cohort no longer listens");
        assertEquals(1, bench.cohorts.size(), "A has not decided yet");
        bench.attemptLeft(A);
        assertEquals(1, redis.unmarks.size());
        assertEquals(1, bench.cohorts.size(), "the cohort leaves once the withdrawal is done");
        redis.unmarks.remove().complete(1L);
        assertEquals(0, bench.cohorts.size());
    }

    @Test
    void aTryThatFailsAfterTheLastWaiterLeftWithdrawsTheClientsMark() {
        bench.tryFor(A);
        redis.busy(500);
        Waiter waiter = bench.join(A);
        CompletableFuture<TryResult> again = bench.tryFor(A);
        waiter.close(); // A gives up while its try is out

        redis.cohortTries.remove().completeExceptionally(new IllegalStateException("refused"));

        assertTrue(again.isCompletedExceptionally());
        assertEquals(1, redis.unmarks.size());
    }

    @Test
    void aFixedLeaseTryAnsweredBusyKeepsTheClaimUntilTheOwnerDecides() {
        bench.tryFixed(B);
        redis.ownTries.remove().answer().complete(TryResult.busy(500));

        assertTrue(redis.unmarks.isEmpty());
        assertEquals(1, bench.cohorts.size());
        bench.attemptLeft(B);
        assertEquals(1, redis.unmarks.size(), "the fixed lease's try marked the client too");
    }

    @Test
    void aFixedLeaseGrantRemovesTheClientsMarkSoNothingIsWithdrawn() {
        bench.tryFixed(B);
        redis.ownTries.remove().answer().complete(TryResult.busy(500));
        Waiter waiter = bench.join(B);
        bench.tryFixed(B);
        long until = redis.leaseFromNow();
        redis.ownTries.remove().answer().complete(TryResult.acquired(ScriptedCohortRedis.grantOf(7, until, false)));

        waiter.close();

        assertTrue(redis.unmarks.isEmpty(), "Redis removed the mark as it granted B's hold");
        assertEquals(0, bench.cohorts.size());
    }

    @Test
    void aFixedLeaseTryThatFailsAfterTheLastWaiterLeftWithdrawsTheClientsMark() {
        bench.tryFixed(B);
        redis.ownTries.remove().answer().complete(TryResult.busy(500));
        Waiter waiter = bench.join(B);
        bench.tryFixed(B);
        waiter.close();
        assertTrue(redis.unmarks.isEmpty(), "B's try is still out");

        redis.ownTries.remove().answer().completeExceptionally(new IllegalStateException("refused"));

        assertEquals(1, redis.unmarks.size());
    }

    @Test
    void aMarkMadeAfterTheLastWithdrawalIsWithdrawnToo() {
        bench.tryFor(A);
        redis.busy(500);
        bench.attemptLeft(A);
        assertEquals(1, redis.unmarks.size());
        bench.tryFixed(B);
        assertEquals(0, redis.ownTries.size(), "a fixed-lease try goes after the withdrawal in flight");

        redis.unmarks.remove().complete(1L);
        redis.ownTries.remove().answer().complete(TryResult.busy(500)); // marks the client again
        bench.attemptLeft(B);

        assertEquals(1, redis.unmarks.size(), "the second mark is withdrawn as its attempt leaves");
        assertEquals(1, bench.cohorts.size());
        redis.unmarks.remove().complete(1L);
        assertEquals(0, bench.cohorts.size());
    }

    @Test
    void anOwnersOwnWaitsDoNotCountAsOthersWaitingWhenItReleases() {
        Waiter first = bench.join(A);
        bench.join(A);
        first.close(); // one of A's two attempts left; the other still waits
        bench.takeInRedis(A, 1);

        bench.release(A);

        assertEquals(1, redis.releases.size(), "only A's own attempt waits: nothing to pass on");
        redis.released();
        bench.join(B);
        bench.takeInRedis(A, 1025);

        bench.release(A);

        assertEquals(0, redis.releases.size(), "B waits: the hold is passed on");
    }

    @Test
    void aRetiredCohortTurnsAwayTriesWaitersAndReleases() {
        Cohort retired = bench.cohort();
        bench.takeInRedis(A, 1);
        bench.release(A);
        redis.released();
        assertNull(bench.existing());

        assertNull(retired.tryAcquire(B, ScriptedCohortRedis.WATCHDOG, 0));
        assertFalse(retired.waiterJoined(B));
        assertNull(retired.release(B));
        bench.join(B);
        assertNotSame(retired, bench.existing(), "B waits in a live cohort");
    }

    @Test
    void theRegistryHasACohortOnlyWhileTheClientUsesTheLock() {
        assertEquals(0, bench.cohorts.size());
        assertNull(bench.cohorts.release(CohortBench.LOCK, A), "no cohort: A's hold, if any, is its own");
        assertNull(bench.cohorts.localHold(CohortBench.LOCK, A));

        bench.takeInRedis(A, 1);

        assertEquals(1, bench.cohorts.size());
        assertEquals(1, bench.cohorts.localHold(CohortBench.LOCK, A).levels());
        assertNotNull(bench.cohorts.release(CohortBench.LOCK, A));
    }
}
