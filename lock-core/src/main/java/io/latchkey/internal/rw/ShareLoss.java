package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.spi.Hold;
import io.latchkey.spi.RenewedLease;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ReadShare} does when its shared hold in Redis, known by its token, is confirmed,
 * doubted or lost, and how the hold of each reader admitted on it is tied to it, as the plain
 * lock's cohort has its {@code HoldLoss}: a renewal confirms every local reader's {@link Hold}; a
 * doubt (a lost connection, a failed renewal) stops the admissions until Redis is heard from
 * again ({@link AdmissionBudget}); a loss (a renewal, a reserve or a query found the hold gone,
 * a local reader's lease as confirmed ran out, a force-unlock by this client) loses every local
 * reader's hold and frees the share for a new hold with new tokens. Reports about a hold other
 * than the share's current one change nothing.
 *
 * <p>Its fields are guarded by the owning share's monitor, the same object for every part of the
 * share, so that a report and a transition never interleave. Its methods are called outside it
 * and take it themselves; the Redis calls, the readers' {@link Hold}s and the completions of
 * futures are called outside it.
 */
final class ShareLoss implements LocalGrant.Source {

    private final ReadShare share;
    private final ShareRedis redis;
    private final AdmissionBudget budget;
    private final AdmittedReaders readers;
    /** Guarded by the share: what the watchdog tells of the shared hold, while HELD. */
    private @Nullable ShareLease renewing;
    /** Guarded by the share: stops hearing of the client's lost connections, while HELD. */
    private @Nullable Runnable stopObserving;

    ShareLoss(ReadShare share, ShareRedis redis, AdmissionBudget budget, AdmittedReaders readers) {
        this.share = share;
        this.redis = redis;
        this.budget = budget;
        this.readers = readers;
    }

    /**
     * Guarded by the share: the shared hold {@code token} is held from now on; a lost connection
     * doubts it and the watchdog's renewals confirm it.
     *
     * @return what to hand the watchdog ({@link ShareRedis#renew}) once the monitor is left
     */
    RenewedLease watch(long token) {
        ShareLease renewal = new ShareLease(token);
        renewing = renewal;
        stopObserving = redis.observeConnection(() -> doubt(token));
        return renewal;
    }

    /**
     * Guarded by the share: the shared hold is being released or is lost; nothing said of it
     * from now on changes the share.
     *
     * @return what the watchdog was given for it, or null
     */
    @Nullable RenewedLease unwatch() {
        ShareLease renewal = renewing;
        renewing = null;
        if (stopObserving != null) {
            stopObserving.run();
            stopObserving = null;
        }
        return renewal;
    }

    /** A local grant was recorded in the owner's hold: the share confirms it and loses it with itself. */
    @Override
    public void started(long owner, long token, Hold hold) {
        boolean current;
        long confirmedUntil;
        synchronized (share) {
            current = share.isHeld() && readers.record(owner, token, hold);
            confirmedUntil = budget.confirmedUntilNanos();
        }
        hold.onLoss((lostHold, mayRemainInRedis) -> readerLost(lostHold, mayRemainInRedis));
        if (!current) {
            if (hold.isHeld()) {
                hold.lose("the client's shared read hold in Redis was lost before the grant was recorded", false);
            }
            return;
        }
        // A renewal between the admission and now confirmed the shared hold beyond the grant's lease.
        hold.confirm(confirmedUntil);
        if (hold.isLost()) {
            readerLost(hold, true);
        }
    }

    /** A local grant that the acquire loop could not record gives its level back. */
    @Override
    public void refused(long owner, long token, boolean reentry) {
        boolean giveBack;
        synchronized (share) {
            giveBack = readers.giveBack(owner, token, reentry);
        }
        if (giveBack) {
            share.release(owner);
        }
    }

    /**
     * A local reader's hold was given up for lost: its lease, the shared hold's as confirmed, ran
     * out (or the client closed); so did every other local reader's.
     */
    private void readerLost(Hold hold, boolean mayRemainInRedis) {
        long token;
        synchronized (share) {
            if (!share.isHeld() || !readers.isRecorded(hold)) {
                return;
            }
            token = share.redisToken();
        }
        lost(Objects.requireNonNullElse(hold.lossReason(), "a local reader's lease was lost"), mayRemainInRedis, token);
    }

    /** This client force-unlocked the read side: the shared hold is gone. */
    void forced() {
        long token;
        synchronized (share) {
            token = share.redisToken();
        }
        lost("the client force-unlocked the read lock", false, token);
    }

    /** The client has reason to doubt the shared hold {@code token}: no admission until Redis is heard from again. */
    private void doubt(long token) {
        long now = redis.ticker().read();
        synchronized (share) {
            if (share.holdsInRedis(token)) {
                budget.doubt(now);
            }
        }
    }

    /**
     * The shared hold {@code token} is gone, or must be taken as gone: every local reader's hold
     * is lost, and the share is free for a new hold with new tokens.
     */
    void lost(String how, boolean mayRemainInRedis, long token) {
        List<Hold> lostHolds;
        RenewedLease renewal;
        synchronized (share) {
            if (!share.holdsInRedis(token)) {
                return;
            }
            renewal = unwatch();
            lostHolds = readers.holds();
            readers.clear();
            share.ended();
        }
        if (renewal != null) {
            // This hold's renewals only: a new shared hold of the same field may already be renewed.
            redis.stopRenewing(renewal);
        }
        if (mayRemainInRedis) {
            redis.endShareHold(token);
        }
        lostHolds.forEach(hold -> hold.lose(how, false));
    }

    /** What the watchdog finds of the shared hold {@code token}. */
    private final class ShareLease implements RenewedLease {
        private final long token;

        ShareLease(long token) {
            this.token = token;
        }

        @Override
        public void renewed(long sentAtNanos, long untilNanos) {
            List<Hold> confirmed;
            long until;
            synchronized (share) {
                if (!share.holdsInRedis(token)) {
                    return;
                }
                until = budget.confirmed(untilNanos);
                confirmed = readers.holds();
            }
            confirmed.forEach(hold -> hold.confirm(until));
        }

        @Override
        public void foundGone() {
            lost("a renewal found the client's shared read hold gone from Redis", false, token);
        }

        @Override
        public void renewalFailed() {
            doubt(token);
        }
    }
}
