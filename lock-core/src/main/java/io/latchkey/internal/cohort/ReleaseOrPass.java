package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import io.latchkey.internal.cohort.Cohort.State;
import io.latchkey.spi.TryResult;
import io.netty.util.Timeout;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What becomes of the cohort's Redis hold when its owner releases the last level: passed on to a
 * local waiter ({@code PASSING}), or released in Redis ({@code RELEASING}). A passed hold waits at
 * most {@code PASS_NANOS} for a local waiter, then goes to Redis; while another client may wait
 * unheard of, it waits for the read of the mark first ({@link OtherClients#mustHearFirst}).
 *
 * <p>Its fields are guarded by the owning {@link Cohort}'s monitor, and so are the methods said to
 * be; the others are called outside it and take it themselves, so that the Redis calls, the
 * signals of the {@link LocalQueue} and the completions of futures run outside it.
 */
final class ReleaseOrPass {

    /** How long a passed hold waits for a local waiter to take it before it is released in Redis. */
    private static final long PASS_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Cohort cohort;
    private final CohortRedis redis;
    private final HandOffBudget budget;
    private final Attendance attendance;
    private final LocalQueue queue;
    private final DeferredTries deferred;
    private final MarkWithdrawal markWithdrawal;
    /** Guarded by the cohort: releases the passed hold in Redis if no local waiter takes it in time. */
    private @Nullable Timeout passGuard;
    /**
     * Guarded by the cohort: the hold was passed on (PASSING) but no local waiter may take it
     * before the read of the waiting mark in flight is answered ({@link OtherClients#mustHearFirst}).
     */
    private boolean waitingForMark;

    ReleaseOrPass(Cohort cohort, CohortRedis redis, HandOffBudget budget, Attendance attendance, LocalQueue queue,
            DeferredTries deferred, MarkWithdrawal markWithdrawal) {
        this.cohort = cohort;
        this.redis = redis;
        this.budget = budget;
        this.attendance = attendance;
        this.queue = queue;
        this.deferred = deferred;
        this.markWithdrawal = markWithdrawal;
    }

    /**
     * Guarded by the cohort: {@code owner} released its last level; the hold is passed on, or to be
     * released in Redis.
     *
     * @return what to do once the monitor is left, by {@link #carryOut}
     */
    Release decide(long owner) {
        long now = redis.ticker().read();
        boolean stillWaiting = attendance.waitersBesides(owner);
        if (!stillWaiting || cohort.isThroughRedis() || !budget.mayPassOn(now)) {
            cohort.moveTo(State.RELEASING);
            if (stillWaiting) {
                budget.others().marked();
            }
            return new Release(false, stillWaiting, false, false, 0, 0);
        }
        cohort.moveTo(State.PASSING);
        schedulePassGuard();
        OtherClients others = budget.others();
        long token = budget.token();
        boolean readMark = others.readDue(now, token);
        waitingForMark = others.mustHearFirst(now, token);
        return new Release(true, false, !waitingForMark, readMark, budget.redisToken(), token);
    }

    /** @return the release that {@link #decide} chose, sent or signalled outside the monitor */
    CompletableFuture<Void> carryOut(Release last) {
        if (!last.passed()) {
            // With owners still waiting (its bound was reached, or its lease or token block ran
            // out), the release marks the client as waiting in the same script: the next holder's
            // grant finds the mark and bounds its hand-offs from the start. Left to the waiters'
            // next try, a round trip later, the mark was seen to come 7 ms late, a thousand
            // hand-offs.
            return releaseInRedis(last.requeue());
        }
        if (last.signal()) {
            queue.signalOne();
        }
        if (last.readMark()) {
            readMark(last.heldToken(), last.readAt());
        }
        return Cohort.DONE;
    }

    /** What a last release decided under the monitor, done outside it. */
    record Release(boolean passed, boolean requeue, boolean signal, boolean readMark, long heldToken, long readAt) {
    }

    /** Guarded by the cohort. @return whether the passed hold waits for the read of the mark */
    boolean waitsForMark() {
        return waitingForMark;
    }

    /** Guarded by the cohort: the passed hold was taken, or is gone; its guard and its wait end. */
    void cancel() {
        cancelPassGuard();
        waitingForMark = false;
    }

    /** Guarded by the cohort: a passed hold nobody took; true if the caller must release it in Redis. */
    boolean end() {
        if (!cohort.is(State.PASSING)) {
            return false;
        }
        cancel();
        cohort.moveTo(State.RELEASING);
        return true;
    }

    /**
     * Releases in Redis the passed hold that {@link #end} ended for a try; owners of this client
     * still wait (the one trying, at least), so the release marks the client, as a last release does.
     */
    void releaseEnded() {
        boolean requeue;
        synchronized (cohort) {
            requeue = attendance.anyWaiter();
            if (requeue) {
                budget.others().marked();
            }
        }
        releaseInRedis(requeue);
    }

    /**
     * Reads the waiting mark while the hold is passed on, every half bound of hand-offs or every
     * {@link io.latchkey.LocalHandOff#maxTime()}, whichever comes first: the notices of
     * other clients' tries come over pub/sub, which a busy machine was seen to hold up for
     * seconds, and a waiting client must not wait that long for its turn. One GET at a time, at
     * most one per half bound of grants, and none while the lock is not passed on. While the last
     * answer is a whole bound of hand-offs old, or the read is unanswered for {@code maxTime}, the
     * passed hold waits for the answer ({@link OtherClients#mustHearFirst}), and then goes on or
     * to Redis.
     */
    private void readMark(long heldToken, long readAt) {
        redis.readMark().whenComplete((marked, failure) -> heard(heldToken, readAt, failure == null ? marked : null, failure == null));
    }

    private void heard(long heldToken, long readAt, @Nullable String marked, boolean answered) {
        boolean pass = false;
        boolean release = false;
        boolean requeue = false;
        synchronized (cohort) {
            OtherClients others = budget.others();
            if (answered) {
                others.readAnswered(readAt);
            } else {
                others.readFailed(readAt);
            }
            boolean current = cohort.holdsInRedis(heldToken);
            if (current && marked != null && !marked.equals(redis.client())) {
                others.waits();
            }
            if (current && cohort.is(State.PASSING) && waitingForMark) {
                waitingForMark = false;
                long now = redis.ticker().read();
                pass = attendance.anyWaiter() && !cohort.isThroughRedis() && budget.mayPassOn(now)
                        && !others.mustHearFirst(now, budget.token());
                if (!pass) {
                    requeue = attendance.anyWaiter();
                    release = end();
                    if (requeue) {
                        others.marked();
                    }
                }
            }
        }
        if (pass) {
            queue.signalOne();
        }
        if (release) {
            releaseInRedis(requeue);
        }
    }

    /** @param requeue true if owners of this client still wait: the client's mark then names it */
    CompletableFuture<Void> releaseInRedis(boolean requeue) {
        return redis.releaseCohortHold(requeue).whenComplete((ok, failure) -> {
            boolean wake;
            List<DeferredTries.Deferred> answered;
            CompletableFuture<Void> withdrawal;
            synchronized (cohort) {
                if (cohort.is(State.RELEASING)) {
                    cohort.moveTo(State.FREE);
                }
                wake = attendance.anyWaiter();
                answered = deferred.take();
                // The last waiter may have left while the release was in flight: a requeue's mark
                // would then name a client that no longer waits.
                withdrawal = cohort.settleIfIdle();
            }
            if (wake) {
                // Redis's unlock message wakes one waiter of the channel too, but it may come
                // late, and the client knows already: one of its waiters tries Redis, the others
                // share that try's answer.
                queue.signalAll();
            }
            answered.forEach(later -> later.answer().complete(TryResult.busy(0)));
            markWithdrawal.send(withdrawal);
        });
    }

    /** Guarded by the cohort. */
    private void schedulePassGuard() {
        try {
            passGuard = redis.timer().newTimeout(this::passTimedOut, PASS_NANOS, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            passGuard = null; // the client is closing
        }
    }

    /** Guarded by the cohort. */
    private void cancelPassGuard() {
        if (passGuard != null) {
            passGuard.cancel();
            passGuard = null;
        }
    }

    private void passTimedOut(Timeout timeout) {
        boolean release;
        boolean requeue;
        synchronized (cohort) {
            release = passGuard == timeout && end();
            // Owners may still wait: one that has not come for the hold, or all of them while the
            // hold waited for a read of the mark that Redis did not answer in time.
            requeue = release && attendance.anyWaiter();
            if (requeue) {
                budget.others().marked();
            }
        }
        if (release) {
            releaseInRedis(requeue);
        }
    }
}
