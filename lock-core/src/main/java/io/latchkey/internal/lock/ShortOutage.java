package io.latchkey.internal.lock;

import io.latchkey.LockConnectionException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.latchkey.internal.redis.Failures;
import java.util.concurrent.TimeUnit;

/**
 * When one acquire attempt ({@link AcquireAttempt}) tries again after a failed try or a failed
 * join of the wake-ups, instead of failing: the retry rule of a short outage (API.md, "a short
 * outage during a wait").
 *
 * <p>What is tried again: a failure of a call that a later try can get past and that leaves
 * nothing the loop does not know of —
 * <ul>
 * <li>Redis could not be reached ({@link LockConnectionException}): the command was rejected
 *     unsent while the connection was down, or the connection broke under it;</li>
 * <li>Redis did not answer in time ({@link LockTimeoutException});</li>
 * <li>Redis refused the call for a passing reason ({@link LockRefusedException} with
 *     {@code LOADING}, {@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code MASTERDOWN}, {@code READONLY},
 *     {@code BUSY}): it did not run the call.</li>
 * <li>a try that shared another owner's call to Redis (local hand-off) and was told its failure:
 *     as if it had failed so itself.</li>
 * </ul>
 * A try whose outcome is unknown (a broken connection, a timeout) was registered by its kind for
 * settling before it failed ({@link UnsettledCalls}), and every kind sends an owner's next call
 * on a lock only once the earlier ones are settled, so the next try never meets a stray grant.
 * Everything else ends the attempt as before: an error reply that means "no", a lost lease, a
 * closed client, a grant that replicas did not acknowledge.
 *
 * <p>For how long: while the caller's wait lasts, and at least the command timeout from the
 * start of the attempt, so that no wait tries for less than a zero wait. {@code lock()}, whose
 * wait never ends, tries for the command timeout from the start of the try that met the outage,
 * as a zero wait would from there; an answer of Redis ends the outage. A failure that took the
 * whole command timeout (no answer in time) is not tried again by either, one that came at once
 * (not connected, {@code LOADING}) is, for what is left of it. A try never starts at or after
 * the end (one that would is not made), and the attempt fails at the end with the outage's last failure even if a try is still under
 * way then (it may have waited for the settling of a try before it whose answer was lost): that
 * try is given up as a cancel gives it up, its grant handed back, its outcome settled if unknown.
 * So {@code lock()} and a zero wait keep 0.2's bound of one command timeout, and a longer wait
 * throws when it ends (README, "A short outage during a wait").
 *
 * <p>With what pause: {@value #FIRST_PAUSE_MILLIS} ms after the first failure, doubling up to
 * {@value #MAX_PAUSE_MILLIS} ms; a pause that would reach the end above is not followed by a try.
 *
 * <p>Not thread-safe: the attempt's steps run one after another; only {@link #isStill} may be
 * called from elsewhere (the timer that ends an outage).
 */
final class ShortOutage {

    static final long FIRST_PAUSE_MILLIS = 10;
    static final long MAX_PAUSE_MILLIS = 500;
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(FIRST_PAUSE_MILLIS);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_PAUSE_MILLIS);

    /** The end of the tries for an attempt with a wait, or {@link Long#MAX_VALUE} for {@code lock()}. */
    private final long waitEndNanos;
    private final long commandTimeoutNanos;
    private final boolean waitsForever;
    private volatile boolean inOutage;
    /** Counts the outages: the end of one must not cut a later one short. */
    private volatile int outages;
    private long endNanos;
    private long pauseNanos;

    /**
     * @param startNanos when the attempt started, by the client's ticker
     * @param deadlineNanos when its wait ends, or {@code forever} for {@code lock()}
     * @param forever the deadline of a wait that never ends
     * @param commandTimeoutNanos how long one try may take
     */
    ShortOutage(long startNanos, long deadlineNanos, long forever, long commandTimeoutNanos) {
        this.commandTimeoutNanos = commandTimeoutNanos;
        this.waitsForever = deadlineNanos == forever;
        long commandTimeoutEnd = startNanos + commandTimeoutNanos;
        this.waitEndNanos = waitsForever ? forever : deadlineNanos - commandTimeoutEnd > 0 ? deadlineNanos : commandTimeoutEnd;
    }

    /**
     * @param failure how a try (or a join of the wake-ups) failed
     * @return true if it is a failure a short outage causes, and nothing of the call is left that
     *     the loop does not know of
     */
    static boolean isPassing(Throwable failure) {
        Throwable cause = Failures.unwrap(failure);
        return cause instanceof LockConnectionException || cause instanceof LockTimeoutException
                || (cause instanceof LockRefusedException && Failures.isPassingRefusal(cause));
    }

    /**
     * A try failed.
     *
     * @param failure how
     * @param startedNanos when the failed try (or join) was started, by the client's ticker
     * @param nowNanos the client's ticker now
     * @return the pause before the next try in nanoseconds, at least 1; or -1 if the attempt must
     *     fail with {@code failure}: it is not a passing failure, or the outage outlasted the end
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // written by the attempt's steps alone, one after another
    long failed(Throwable failure, long startedNanos, long nowNanos) {
        if (!isPassing(failure)) {
            return -1;
        }
        if (!inOutage) {
            outages++;
            inOutage = true;
            pauseNanos = FIRST_PAUSE_NANOS;
            endNanos = waitsForever ? startedNanos + commandTimeoutNanos : waitEndNanos;
        }
        long left = endNanos - nowNanos;
        if (left <= 0) {
            return -1;
        }
        long pause = Math.min(pauseNanos, left);
        pauseNanos = Math.min(MAX_PAUSE_NANOS, pauseNanos * 2);
        return Math.max(1, pause);
    }

    /** @return the outage under way: what {@link #isStill} is asked about; 0 before the first */
    int current() {
        return outages;
    }

    /** @return when the tries of the outage under way end, by the client's ticker */
    long endNanos() {
        return endNanos;
    }

    /**
     * @param outage an earlier {@link #current()}
     * @return true if that outage is still under way: no answer of Redis since
     */
    boolean isStill(int outage) {
        return inOutage && outages == outage;
    }

    /** Redis answered a try: the outage, if there was one, is over. */
    void answered() {
        inOutage = false;
    }
}
