package io.latchkey.internal.cohort;

import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of one client's cohort of one plain lock, as the cohort uses it: the calls on the
 * lock (as acquire.lua, release.lua and unmark.lua define them), the watchdog's reports on the
 * cohort's hold, the notices on the lock's channel, and the client's clock. {@link PlainLockRedis}
 * is the real one; a model of Redis stands in for it where the cohort's interleavings are explored.
 */
interface CohortRedis {

    /** @return the lock's name */
    String lockName();

    /** @return the lock's kind, for events */
    String kind();

    /** @return the client's id, as its tries write it into the lock's waiting mark */
    String client();

    /** @return the client's clock */
    Ticker ticker();

    /** @return the client's timer */
    Timer timer();

    /** @return the client's command timeout: the margin of a lease within which nothing is passed on */
    Duration commandTimeout();

    /**
     * A try for a new hold under the cohort's owner id, which reserves a block of tokens, marks the
     * client as waiting if the lock is held or another client's turn, and replaces a hold of the
     * cohort's own that Redis may still have (one given up for lost): a cohort's new hold is always new.
     *
     * @param lease the watchdog lease
     * @return the try's result
     */
    CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease);

    /**
     * A try of an owner for a hold of its own, outside the cohort: a fixed lease, which marks the
     * client as waiting as the cohort's tries do, or a re-entry of such a hold.
     *
     * @param owner the owner id
     * @param lease the lease
     * @param heldToken the token of the hold to re-enter, or 0
     * @return the try's result
     */
    CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken);

    /**
     * @param owner the owner id
     * @return releases one level of the owner's own hold
     */
    CompletableFuture<Void> releaseOwnHold(long owner);

    /**
     * Releases the cohort's hold; if it deletes the lock, reserves a turn for the client the
     * waiting mark names.
     *
     * @param requeue true if owners of this client still wait: the mark then names this client
     * @return completes when released
     */
    CompletableFuture<Void> releaseCohortHold(boolean requeue);

    /**
     * Ends the cohort's hold with token {@code token}, if Redis still has it, before the cohort's next call.
     *
     * @param token the lost hold's token
     */
    void endCohortHold(long token);

    /** @return withdraws the client's waiting mark and turn, if they still name it */
    CompletableFuture<?> unmark();

    /** @return the client the lock's waiting mark names, or null */
    CompletableFuture<String> readMark();

    /**
     * @param token the cohort hold's token
     * @return true if Redis still has that hold
     */
    CompletableFuture<Boolean> holdsCohortHold(long token);

    /**
     * Hands the cohort's hold to the watchdog.
     *
     * @param reports told what the renewals find
     */
    void renew(HoldReports reports);

    /** Stops renewing the cohort's hold. */
    void stopRenewing();

    /**
     * @param notices told each notice on the lock's channel and each lost connection of the client
     * @return stops telling; idempotent
     */
    Runnable observe(Notices notices);

    /**
     * Tells the client's listeners of a local hand-off.
     *
     * @param from the owner that released
     * @param to the owner granted
     * @param token the token of the granted owner's new hold
     */
    void handedOff(long from, long to, long token);

    /** What the watchdog finds of the cohort's hold. Must not block. */
    interface HoldReports {

        /** A renewal found the hold gone. */
        void lost();

        /**
         * @param sentAtNanos when the renewal that found the hold and reset its lease was sent
         * @param untilNanos until when, at least, Redis keeps the hold now
         */
        void renewed(long sentAtNanos, long untilNanos);

        /** A renewal failed: Redis did not answer, or refused. */
        void failed();
    }

    /** What the cohort hears besides answers. Must not block. */
    interface Notices {

        /** @param message a notice on the lock's channel: {@code !wait:<client>} or {@code !force:<token>} */
        void notice(String message);

        /** A connection of the client was lost: the cohort's hold may be gone with Redis's data. */
        void connectionLost();
    }
}
