package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The withdrawal of the client's waiting mark in Redis once its cohort is idle (rule 6): one at a
 * time, which the cohort's next try goes after; one that fails is sent again a command timeout
 * later, a few times, after which the mark is left to run out by itself.
 *
 * <p>Its fields are guarded by the owning {@link Cohort}'s monitor. {@link #begin()} is called
 * under it; {@link #send} outside it, which takes the monitor only to record the answer: the
 * Redis call and the completion of the withdrawal run outside.
 */
final class MarkWithdrawal {

    /** How many times a withdrawal of the client's mark is sent before the mark is left to run out. */
    private static final int MAX_WITHDRAWALS = 3;

    private final Cohort cohort;
    private final CohortRedis redis;
    private final OtherClients others;
    /** Guarded by the cohort: the withdrawal in flight; the next try goes after it. */
    private @Nullable CompletableFuture<Void> unmarking;
    /** Guarded by the cohort: withdrawals of the mark that failed in a row. */
    private int failures;

    MarkWithdrawal(Cohort cohort, CohortRedis redis, OtherClients others) {
        this.cohort = cohort;
        this.redis = redis;
        this.others = others;
    }

    /** Guarded by the cohort. @return the withdrawal in flight, or null */
    @Nullable CompletableFuture<Void> inFlight() {
        return unmarking;
    }

    /**
     * Guarded by the cohort: the cohort is idle.
     *
     * @return the withdrawal to send once the monitor is left, if the client's mark stands; else null
     */
    @Nullable CompletableFuture<Void> begin() {
        if (others.withdraw()) {
            unmarking = new CompletableFuture<>();
            return unmarking;
        }
        return null;
    }

    /** @param withdrawal one that {@link #begin()} or {@link Cohort#settleIfIdle()} returned, or null */
    void send(@Nullable CompletableFuture<Void> withdrawal) {
        if (withdrawal == null) {
            return;
        }
        redis.unmark().whenComplete((ok, failure) -> {
            boolean again;
            CompletableFuture<Void> next;
            synchronized (cohort) {
                unmarking = null;
                // A withdrawal that failed is tried again a few times, a command timeout apart;
                // after that the mark runs out by itself within the lease of the try that set it.
                again = failure != null && ++failures < MAX_WITHDRAWALS && !cohort.isClosed();
                if (again) {
                    others.marked();
                } else {
                    failures = 0;
                }
                next = again ? null : cohort.settleIfIdle();
            }
            withdrawal.complete(null);
            send(next);
            if (again) {
                sendAgainLater();
            }
        });
    }

    private void sendAgainLater() {
        try {
            redis.timer().newTimeout(timeout -> {
                CompletableFuture<Void> next;
                synchronized (cohort) {
                    next = cohort.settleIfIdle();
                }
                send(next);
            }, redis.commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            // the client is closing
        }
    }

    @Override
    public String toString() {
        return unmarking != null ? ", unmarking" : "";
    }
}
