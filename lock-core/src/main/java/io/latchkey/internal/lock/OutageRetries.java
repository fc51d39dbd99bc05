package io.latchkey.internal.lock;

import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.StopAwareTask;
import io.latchkey.spi.Ticker;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The timing of one acquire attempt's tries in a short outage, on the client's timer: the pause
 * before the next try, and the end of the outage's tries, which fails the attempt even with a try
 * under way ({@link ShortOutage} says which failures, for how long, with what pause).
 *
 * <p>{@link #failed} is called by the attempt's steps, one after another; the timer's tasks and
 * {@link #stop} may run beside them, so what they share is volatile.
 */
final class OutageRetries {

    /** What the attempt does when told by the timer. */
    interface Steps {

        /** Makes the next try (the attempt may have ended meanwhile: then it cleans up). */
        void tryAgain();

        /**
         * Ends the attempt with {@code failure} after cleaning up, no try being under way.
         *
         * @param failure what the caller is told
         */
        void fail(Throwable failure);

        /**
         * Ends the attempt with {@code failure} now; a try under way cleans up when it completes.
         *
         * @param failure what the caller is told
         */
        void cut(Throwable failure);

        /** @return true once the attempt has ended */
        boolean ended();
    }

    private final ShortOutage outage;
    private final @Nullable Timer timer;
    private final Ticker ticker;
    private final Steps steps;
    /** The next try after a failure, while it waits for its time; null otherwise. */
    private volatile @Nullable Timeout pendingRetry;
    /** Ends the tries of the outage {@link #outageEnded}; null before the first outage. */
    private volatile @Nullable Timeout outageEnd;
    private int outageEnded;
    /** The latest failure of the outage under way: what the attempt fails with when its tries end. */
    private volatile @Nullable Throwable lastFailure;

    OutageRetries(ShortOutage outage, @Nullable Timer timer, Ticker ticker, Steps steps) {
        this.outage = outage;
        this.timer = timer;
        this.ticker = ticker;
        this.steps = steps;
    }

    /**
     * A try or a join failed: schedules the next try, or the end of the attempt.
     *
     * @param failure how
     * @param startedNanos when the failed step started, by the client's ticker
     * @return the pause before the next try in nanoseconds, or -1 if the attempt must fail now
     *     with {@code failure}
     */
    long failed(Throwable failure, long startedNanos) {
        Timer current = timer;
        if (current == null || steps.ended()) {
            return -1;
        }
        long pauseNanos = outage.failed(failure, startedNanos, ticker.read());
        if (pauseNanos < 0) {
            return -1;
        }
        try {
            lastFailure = failure;
            endOutageInTime(current);
            long leftNanos = outage.endNanos() - ticker.read();
            // A try at the end would be cut short at once: the pause then ends the attempt instead.
            pendingRetry = pauseNanos < leftNanos ? current.newTimeout(new Retry(), pauseNanos, TimeUnit.NANOSECONDS)
                    : current.newTimeout(new NoMoreTries(), Math.max(1, leftNanos), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            return -1; // the client is closing: no more tries
        }
        Timeout retry = pendingRetry;
        if (steps.ended() && retry != null && retry.cancel()) {
            // Ended while the retry was being scheduled: the end found nothing to stop.
            pendingRetry = null;
            steps.tryAgain();
        }
        return pauseNanos;
    }

    /** The attempt ended: no more tries; one waiting for its time is made now, to clean up. */
    void stop() {
        Timeout end = outageEnd;
        if (end != null) {
            end.cancel();
        }
        Timeout retry = pendingRetry;
        if (retry != null && retry.cancel()) {
            steps.tryAgain();
        }
    }

    /**
     * At the first failure of an outage: ends the attempt with the outage's latest failure when
     * its tries end, if Redis has not answered by then, even while a try is under way. That try
     * then ends as after a cancel: a grant is handed back, a lost answer settled.
     */
    private void endOutageInTime(Timer current) {
        int outageNow = outage.current();
        if (outageNow == outageEnded) {
            return;
        }
        outageEnded = outageNow;
        Timeout previous = outageEnd;
        if (previous != null) {
            previous.cancel();
        }
        long inNanos = Math.max(1, outage.endNanos() - ticker.read());
        Timeout end = current.newTimeout(new OutageEnd(outageNow), inNanos, TimeUnit.NANOSECONDS);
        outageEnd = end;
        if (steps.ended()) {
            end.cancel(); // ended while this was being scheduled: the end found nothing to cancel
        }
    }

    private Throwable lastFailure() {
        Throwable failure = lastFailure;
        return failure != null ? failure : LockExceptions.closedWhileWaiting();
    }

    /** The end of an outage's tries, which ends the attempt even with a try under way. */
    private final class OutageEnd implements StopAwareTask {
        private final int outageNow;

        OutageEnd(int outageNow) {
            this.outageNow = outageNow;
        }

        @Override
        public void run(Timeout timeout) {
            if (!outage.isStill(outageNow)) {
                return;
            }
            Timeout waiting = pendingRetry;
            if (waiting != null && waiting.cancel()) {
                // No try under way: the attempt leaves Redis (a fair lock's queue) before it
                // fails, as after any failure; cut short, it would fail with its trace still there.
                pendingRetry = null;
                steps.fail(lastFailure());
            } else {
                steps.cut(lastFailure());
            }
        }

        @Override
        public void timerStopped() {
            // Nothing to do: a pending retry ends the attempt when the client closes, and a try
            // under way ends it when it completes.
        }
    }

    /** The end of an outage's tries after the last failure: the attempt fails with it. */
    private final class NoMoreTries implements StopAwareTask {

        @Override
        public void run(Timeout timeout) {
            pendingRetry = null;
            Timeout end = outageEnd;
            if (end != null) {
                end.cancel(); // due at the same time: it would cut the attempt short of leaving Redis
            }
            steps.fail(lastFailure());
        }

        @Override
        public void timerStopped() {
            pendingRetry = null;
            steps.fail(LockExceptions.closedWhileWaiting());
        }
    }

    /** The next try after a pause; if the client closes first, the attempt fails as a wait would. */
    private final class Retry implements StopAwareTask {

        @Override
        public void run(Timeout timeout) {
            pendingRetry = null;
            steps.tryAgain();
        }

        @Override
        public void timerStopped() {
            pendingRetry = null;
            steps.fail(LockExceptions.closedWhileWaiting());
        }
    }
}
