package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConfig.LocalHandOff;
import io.latchkey.internal.hold.Hold;
import io.latchkey.internal.lock.LeaseTerm;
import io.latchkey.internal.lock.TryResult;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.time.Ticker;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A cohort's local grants on a scripted Redis side: what it does with a grant the acquire loop refused. */
class CohortGrantsTest {

    private static final LeaseTerm WATCHDOG = LeaseTerm.watchdog(Duration.ofSeconds(30));
    private static final Object LOCK = "lock";

    private final ManualTicker ticker = new ManualTicker();
    private final ManualTimer timer = ManualTimer.manual(ticker);
    private final Redis redis = new Redis();
    private final Cohorts cohorts = new Cohorts(LocalHandOff.DEFAULT);

    private Cohort cohort() {
        return cohorts.of(LOCK, (self, block) -> redis);
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

    /** A Redis side that grants when the test says, and records releases. */
    private final class Redis implements CohortRedis {
        private final List<CompletableFuture<TryResult>> tries = new ArrayList<>();
        final List<String> releases = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        CompletableFuture<Long> unmarking = CompletableFuture.completedFuture(0L);

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

        @Override
        public String lockName() {
            return "lock";
        }

        @Override
        public String kind() {
            return "plain";
        }

        @Override
        public String client() {
            return "client";
        }

        @Override
        public Ticker ticker() {
            return ticker;
        }

        @Override
        public Timer timer() {
            return timer;
        }

        @Override
        public Duration commandTimeout() {
            return Duration.ofSeconds(3);
        }

        @Override
        public CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease) {
            calls.add("try");
            CompletableFuture<TryResult> answer = new CompletableFuture<>();
            tries.add(answer);
            return answer;
        }

        @Override
        public CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<Void> releaseOwnHold(long owner) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> releaseCohortHold(boolean requeue) {
            releases.add(requeue ? "requeue" : "release");
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void endCohortHold(long token) {
        }

        @Override
        public CompletableFuture<?> unmark() {
            calls.add("unmark");
            return unmarking;
        }

        @Override
        public CompletableFuture<String> readMark() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Boolean> holdsCohortHold(long token) {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public void renew(HoldReports reports) {
        }

        @Override
        public void stopRenewing() {
        }

        @Override
        public Runnable observe(Notices notices) {
            return () -> { };
        }

        @Override
        public void handedOff(long from, long to, long token) {
        }
    }
}
