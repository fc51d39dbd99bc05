package io.latchkey.internal.cohort;

import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.spi.CohortRedis;
import io.latchkey.spi.Hold;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * What the cohort does when its Redis hold, known by its token, is doubted, confirmed or lost
 * (rules 3 and 5), and how the hold of each owner granted locally is tied to it: a doubt stops the hand-offs until a confirmation sent after it arrives; a
 * confirmation extends the lease as the cohort and its owner's hold know it; a loss ends the
 * cohort, loses its owner's hold, and sends every local waiter back to Redis, for a new hold with
 * new tokens. Reports about a hold other than the cohort's current one change nothing.
 *
 * <p>Its fields are guarded by the owning {@link Cohort}'s monitor. Its methods are called outside
 * it and take it themselves; the Redis calls, the owner's {@link Hold}, the signals of the
 * {@link LocalQueue} and the completions of futures are called outside it.
 */
final class HoldLoss implements LocalGrant.Source {

    private final Cohort cohort;
    private final CohortRedis redis;
    private final HandOffBudget budget;
    private final LocalQueue queue;
    private final MarkWithdrawal markWithdrawal;
    /** Guarded by the cohort: whether, and when, a connection of the client was last lost. */
    private boolean connectionLost;
    private long lastLossNanos;

    HoldLoss(Cohort cohort, CohortRedis redis, HandOffBudget budget, LocalQueue queue, MarkWithdrawal markWithdrawal) {
        this.cohort = cohort;
        this.redis = redis;
        this.budget = budget;
        this.queue = queue;
        this.markWithdrawal = markWithdrawal;
    }

    /** A local grant was recorded in the owner's hold: the cohort confirms it and ends it with itself. */
    @Override
    public void started(long owner, long token, Hold hold) {
        boolean current;
        synchronized (cohort) {
            current = cohort.recordOwnerHold(owner, token, hold);
        }
        hold.onLoss((lostHold, mayRemainInRedis) -> ownerLost(lostHold, mayRemainInRedis));
        if (!current && hold.isHeld()) {
            hold.lose("the client's hold in Redis was lost before the grant was recorded", false);
        } else if (current && hold.isLost()) {
            // Lost between its recording and the handler above: the owner will not release it, so
            // the cohort ends it (in Redis too: the loss may have been its lease taken as run out).
            ownerLost(hold, true);
        }
    }

    /**
     * A local grant that the acquire loop could not record: the owner's hold was given up for lost
     * meanwhile, and the owner is told so instead. The level is given back, so that the cohort is
     * not left held for an owner that does not know it holds.
     */
    @Override
    public void refused(long owner, long token, boolean reentry) {
        boolean giveBack;
        synchronized (cohort) {
            giveBack = cohort.giveBack(owner, token, reentry);
        }
        if (giveBack) {
            cohort.release(owner);
        }
    }

    private void ownerLost(Hold hold, boolean mayRemainInRedis) {
        long current;
        synchronized (cohort) {
            if (!cohort.is(Cohort.State.HELD) || cohort.ownerHold() != hold) {
                return;
            }
            current = budget.redisToken();
        }
        // Set before the hold's loss handler runs, and before isLost() is true: both callers come after.
        lost(Objects.requireNonNull(hold.lossReason(), "a lost hold has its reason"), mayRemainInRedis, current);
    }

    /** A connection of the client was lost: the cohort's hold may be gone with Redis's data. */
    void connectionLost() {
        long current;
        synchronized (cohort) {
            connectionLost = true;
            lastLossNanos = redis.ticker().read();
            current = budget.redisToken();
        }
        doubt(current, false);
    }

    /** Guarded by the cohort. @return whether a connection of the client was lost at or after {@code sinceNanos} */
    boolean connectionLostSince(long sinceNanos) {
        return connectionLost && lastLossNanos - sinceNanos >= 0;
    }

    /** A force-unlock by this client deleted the lock: whatever hold the cohort had is gone. */
    void forced() {
        long current;
        synchronized (cohort) {
            current = budget.redisToken();
        }
        lost("it was force-unlocked", false, current);
    }

    /**
     * The client has reason to doubt the cohort's hold {@code heldToken}: no local grant until a
     * confirmation sent from now on; with {@code check}, Redis is asked at once, and a hold found
     * gone ends the cohort.
     */
    void doubt(long heldToken, boolean check) {
        long askedAt;
        synchronized (cohort) {
            if (!cohort.holdsInRedis(heldToken)) {
                return;
            }
            askedAt = redis.ticker().read();
            budget.doubt(askedAt);
        }
        if (check) {
            redis.holdsCohortHold(heldToken).whenComplete((held, failure) -> {
                if (Boolean.FALSE.equals(held)) {
                    lost("it was force-unlocked", false, heldToken);
                } else if (Boolean.TRUE.equals(held)) {
                    confirmed(heldToken, askedAt, Long.MIN_VALUE);
                }
            });
        }
    }

    /**
     * Notices on the lock's channel may have been missed (nobody of the client was subscribed):
     * Redis is asked whether it still has the cohort's hold {@code heldToken}, and a hold found
     * gone ends the cohort. Unlike a doubt's, the question stops no hand-off meanwhile (nothing
     * suggests the hold is gone), and a hold found there lifts no doubt: only the answers that
     * the doubts name do.
     */
    void check(long heldToken) {
        redis.holdsCohortHold(heldToken).whenComplete((held, failure) -> {
            if (Boolean.FALSE.equals(held)) {
                lost("Redis no longer had it (force-unlocked or deleted)", false, heldToken);
            }
        });
    }

    /**
     * The Redis hold with token {@code heldToken} is gone, or must be taken as gone: the cohort
     * ends, its owner's hold is lost, and every waiter tries Redis again.
     */
    void lost(String how, boolean mayRemainInRedis, long heldToken) {
        Hold lostHold;
        CompletableFuture<Void> withdrawal;
        synchronized (cohort) {
            if (!cohort.holdsInRedis(heldToken)) {
                return;
            }
            lostHold = cohort.end();
            redis.stopRenewing();
            if (mayRemainInRedis) {
                // Registered before the cohort is FREE to others, so the next Redis try goes after it.
                redis.endCohortHold(heldToken);
            }
            withdrawal = cohort.settleIfIdle();
        }
        if (lostHold != null) {
            lostHold.lose(how, false);
        }
        queue.signalAll();
        markWithdrawal.send(withdrawal);
    }

    /**
     * Redis answered, to a call sent at {@code sentAtNanos}, that it still has the hold {@code heldToken}.
     *
     * @param untilNanos the lease that the answer confirms, or {@code Long.MIN_VALUE} for an
     *     answer that did not extend it (a read)
     */
    void confirmed(long heldToken, long sentAtNanos, long untilNanos) {
        Hold current;
        synchronized (cohort) {
            if (!cohort.holdsInRedis(heldToken)) {
                return;
            }
            budget.confirmed(sentAtNanos, untilNanos);
            current = cohort.ownerHold();
        }
        if (current != null && untilNanos != Long.MIN_VALUE) {
            current.confirm(untilNanos);
        }
    }
}
