package io.latchkey.internal.cohort;

import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.spi.CohortRedis;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The tries that the cohort sends to Redis and what their answers change: the cohort's own try
 * ({@code ACQUIRING}), whose grant makes the cohort {@code HELD} and whose answer the deferred
 * tries share, and the tries of owners' own holds (fixed leases, re-entries of such holds). Each
 * goes after a withdrawal of the client's mark in flight; a try that may have marked the client
 * leaves the mark standing, to be withdrawn when its attempt leaves (rules 4 and 6).
 *
 * <p>Its fields are guarded by the owning {@link Cohort}'s monitor, and so are the methods said to
 * be; the others are called outside it and take it themselves, so that the Redis calls and the
 * completions of futures run outside it.
 */
final class RedisTries {

    private final Cohort cohort;
    private final CohortRedis redis;
    private final HandOffBudget budget;
    private final Attendance attendance;
    private final DeferredTries deferred;
    private final MarkWithdrawal markWithdrawal;
    private final ReleaseOrPass releases;
    private final HoldLoss losses;
    /** Guarded by the cohort: when the cohort's try in flight was sent. */
    private long trySentNanos;

    RedisTries(Cohort cohort, CohortRedis redis, HandOffBudget budget, Attendance attendance, DeferredTries deferred,
            MarkWithdrawal markWithdrawal, ReleaseOrPass releases, HoldLoss losses) {
        this.cohort = cohort;
        this.redis = redis;
        this.budget = budget;
        this.attendance = attendance;
        this.deferred = deferred;
        this.markWithdrawal = markWithdrawal;
        this.releases = releases;
        this.losses = losses;
    }

    /** Guarded by the cohort: the cohort's try is about to be sent; what was known of the last hold no longer counts. */
    void cohortTrySent(long nowNanos) {
        trySentNanos = nowNanos;
        budget.others().trySent();
    }

    /**
     * @param after the withdrawal of the client's mark in flight when the try was decided, or null
     * @return the answer to the cohort's try, sent for {@code owner}
     */
    CompletableFuture<TryResult> sendCohortTry(long owner, LeaseTerm lease, @Nullable CompletableFuture<Void> after) {
        CompletableFuture<TryResult> sent = after == null ? redis.tryCohortHold(lease)
                : after.thenCompose(unmarked -> redis.tryCohortHold(lease));
        return sent.handle((reply, failure) -> afterCohortTry(owner, reply, failure));
    }

    /**
     * @param after the withdrawal of the client's mark in flight when the try was decided, or null
     * @return the answer to the owner's try for a hold of its own
     */
    CompletableFuture<TryResult> sendOwnTry(long owner, LeaseTerm lease, long heldToken, @Nullable CompletableFuture<Void> after) {
        CompletableFuture<TryResult> sent = after == null ? redis.tryOwnHold(owner, lease, heldToken)
                : after.thenCompose(unmarked -> redis.tryOwnHold(owner, lease, heldToken));
        return sent.whenComplete((reply, failure) -> afterOwnTry(owner, lease, reply, failure, heldToken));
    }

    private TryResult afterCohortTry(long owner, TryResult reply, Throwable failure) {
        boolean granted = failure == null && reply.acquired();
        boolean giveBack = false;
        TryResult result = reply;
        TryResult forDeferred;
        List<DeferredTries.Deferred> answered;
        CompletableFuture<Void> withdrawal;
        synchronized (cohort) {
            if (granted && !cohort.isClosed()) {
                cohort.heldInRedis();
                long now = redis.ticker().read();
                budget.held(Objects.requireNonNull(reply.grant(), "an acquired result has its grant"), now);
                if (losses.connectionLostSince(trySentNanos)) {
                    // A connection was lost while the try was in flight (its answer came on the new
                    // one, or behind a WAIT): Redis may have failed over meanwhile.
                    budget.doubt(now);
                }
                result = TryResult.acquired(new LocalGrant(cohort.losses(), owner, budget.token(), budget.confirmedUntilNanos(), false));
                redis.renew(new CohortReports(losses, budget.redisToken()));
            } else if (granted) {
                // Granted while the client closed: nothing would renew or release it.
                cohort.grantedWhileClosed();
                giveBack = true;
            } else {
                cohort.notGranted();
                if (failure == null) {
                    // The try marked the client: the claim stands until its attempt joins the
                    // waiters, takes the lock, or leaves (abandon), whichever comes first.
                    budget.others().marked();
                    attendance.toldBusy(owner);
                } else if (Failures.isOutcomeUnknown(failure)) {
                    // It may have run and marked the client: withdrawn when the attempt leaves.
                    budget.others().marked();
                }
            }
            answered = deferred.take();
            // After a grant, the hold is passed on to the tries answered here; after "held", they
            // wait as the try did: an unlock that came after Redis answered it changed the
            // channel's sequence since each of them last looked, so it still wakes them. After a
            // failure, they are told it: Redis answered none of them, so an outage goes on for each.
            forDeferred = granted ? TryResult.busy(budget.heldMillis(redis.ticker().read()))
                    : failure != null ? TryResult.sharedFailure(failure) : TryResult.busy(reply.waitMillis());
            withdrawal = cohort.settleIfIdle();
        }
        // A second attempt of the granted owner tries again at once, and re-enters.
        answered.forEach(later -> later.answer().complete(granted && later.owner() == owner ? TryResult.busy(0) : forDeferred));
        markWithdrawal.send(withdrawal);
        if (giveBack) {
            releases.releaseInRedis(false);
            throw new CompletionException(LockExceptions.clientClosed());
        }
        if (failure != null) {
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        }
        return result;
    }

    private void afterOwnTry(long owner, LeaseTerm lease, TryResult reply, Throwable failure, long heldToken) {
        CompletableFuture<Void> withdrawal;
        synchronized (cohort) {
            attendance.ownTryAnswered();
            if (failure == null && heldToken == 0 && reply.acquired()) {
                budget.others().unmarkedByGrant();
            } else if (failure == null && heldToken == 0 && !reply.holdGone()) {
                budget.others().marked();
                attendance.toldBusy(owner);
            } else if (failure != null && heldToken == 0 && !lease.renewed() && Failures.isOutcomeUnknown(failure)) {
                budget.others().marked();
            }
            withdrawal = cohort.settleIfIdle();
        }
        markWithdrawal.send(withdrawal);
    }
}
