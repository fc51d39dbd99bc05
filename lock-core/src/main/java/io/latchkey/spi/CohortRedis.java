package io.latchkey.spi;

import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of one client's cohort of one lock, as the cohort uses it: the calls on the
 * lock (as lock-core's acquire.lua, release.lua and unmark.lua define them for the plain lock),
 * the watchdog's reports on the cohort's hold, the notices on the lock's channel, and the
 * client's clock. lock-core's {@code PlainLockRedis} is the plain lock's; lock-redlock's
 * {@code RedLockRedis} serves a RedLock's quorum the same way, which is why this is SPI (the one
 * seam of local hand-off that another module implements; {@link LocalHandOffs} gives that module
 * the cohort); a model of Redis stands in for it where the cohort's interleavings are explored.
 * Implementations are thread-safe and never block.
 */
public interface CohortRedis {

    /**
     * The lock's name.
     *
     * @return the name
     */
    String lockName();

    /**
     * The lock's kind, for events.
     *
     * @return the kind
     */
    String kind();

    /**
     * The client's id, as its tries write it into the lock's waiting mark.
     *
     * @return the id
     */
    String client();

    /**
     * The client's clock.
     *
     * @return the clock
     */
    Ticker ticker();

    /**
     * The client's timer.
     *
     * @return the timer
     */
    Timer timer();

    /**
     * The client's command timeout: the margin of a lease within which nothing is passed on.
     *
     * @return the margin
     */
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
     * Releases one level of an owner's own hold.
     *
     * @param owner the owner id
     * @return completes when released
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

    /**
     * Withdraws the client's waiting mark and turn, if they still name it.
     *
     * @return completes when withdrawn
     */
    CompletableFuture<?> unmark();

    /**
     * Reads the lock's waiting mark.
     *
     * @return the client the mark names, or null
     */
    CompletableFuture<String> readMark();

    /**
     * Asks Redis whether it still has the cohort's hold.
     *
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
     * Tells the cohort what it hears besides answers.
     *
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
         * A renewal found the hold and reset its lease.
         *
         * @param sentAtNanos when the renewal that found the hold and reset its lease was sent
         * @param untilNanos until when, at least, Redis keeps the hold now
         */
        void renewed(long sentAtNanos, long untilNanos);

        /** A renewal failed: Redis did not answer, or refused. */
        void failed();
    }

    /** What the cohort hears besides answers. Must not block. */
    interface Notices {

        /**
         * A notice on the lock's channel.
         *
         * @param message a notice on the lock's channel: {@code !wait:<client>} or {@code !force:<token>}
         */
        void notice(String message);

        /** A connection of the client was lost: the cohort's hold may be gone with Redis's data. */
        void connectionLost();
    }
}
