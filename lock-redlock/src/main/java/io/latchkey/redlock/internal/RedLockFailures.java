package io.latchkey.redlock.internal;

import static io.latchkey.spi.KindFailures.describe;
import static io.latchkey.spi.KindFailures.unwrap;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.latchkey.spi.KindFailures;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The exceptions that only RedLock throws: a master not connected or late, a majority not
 * reached. Messages in RedLock's words; a failure that wraps an earlier one takes its type
 * through {@link KindFailures#typedAs}, as lock-core's own situations do. Stateless.
 */
final class RedLockFailures {

    private RedLockFailures() {
    }

    /**
     * @param master the master, as {@link KindFailures#redactedUri} shows it
     * @param why why its last connect failed, or null if none was tried yet
     * @return the RedLock master is not connected yet; typed as {@code why}, a
     *     {@link LockConnectionException} unless Redis refused the connection
     */
    static LockException masterNotConnected(String master, @Nullable LockException why) {
        String message = "RedLock master " + master + " is not connected; the client keeps trying in the background"
                + (why == null ? "" : ": " + why.getMessage());
        return why instanceof LockRefusedException ? new LockRefusedException(message, why)
                : new LockConnectionException(message, why);
    }

    /**
     * @param master the master, as {@link KindFailures#redactedUri} shows it
     * @param cause what connecting threw that is not a {@link LockException}
     * @return connecting to a RedLock master failed unexpectedly; typed as the cause
     */
    static LockException masterConnectFailed(String master, Throwable cause) {
        return KindFailures.typedAs(cause, "cannot connect to RedLock master " + master + ": " + describe(cause));
    }

    /**
     * @param master the master, as {@link KindFailures#redactedUri} shows it
     * @param attemptTimeout the bound on its answer to one acquire
     * @return the master did not answer an acquire within its attempt timeout. Without a cause:
     *     the master's late answer is handled where it arrives
     */
    static LockTimeoutException masterTimedOut(String master, Duration attemptTimeout) {
        return new LockTimeoutException(master + " did not answer within " + attemptTimeout, null);
    }

    /**
     * @param master the master, as {@link KindFailures#redactedUri} shows it
     * @param timeout the master's own command timeout failure
     * @return the master's client timed the acquire out; without a cause, as
     *     {@link #masterTimedOut(String, Duration)}
     */
    static LockTimeoutException masterTimedOut(String master, Throwable timeout) {
        return new LockTimeoutException(master + ": " + describe(unwrap(timeout)), null);
    }

    /**
     * @param redLock the RedLock's name
     * @param answered how many masters answered the acquire in time
     * @param masters how many masters there are
     * @param majority how many answers are needed
     * @param cause the first failure that counts, or null
     * @return fewer than a majority of masters answered an acquire within their attempt timeout;
     *     typed as the cause
     */
    static LockException quorumNotReachedInTime(String redLock, int answered, int masters, int majority, @Nullable Throwable cause) {
        return KindFailures.typedAs(cause, "RedLock '" + redLock + "': only " + answered + " of " + masters
                + " masters answered within their attempt timeout; a majority of " + majority + " is needed"
                + (cause == null ? "" : ": " + describe(cause)));
    }

    /**
     * @param redLock the RedLock's name
     * @param answered how many masters answered a query
     * @param masters how many masters there are
     * @param majority how many answers are needed
     * @param cause the first failure, or null
     * @return fewer than a majority of masters answered; typed as the cause
     */
    static LockException quorumNotReached(String redLock, int answered, int masters, int majority, @Nullable Throwable cause) {
        return KindFailures.typedAs(cause, "RedLock '" + redLock + "': only " + answered + " of " + masters
                + " masters answered; a majority of " + majority + " is needed"
                + (cause == null ? "" : ": " + describe(cause)));
    }

    /**
     * @param redLock the RedLock's name
     * @param released how many masters released the owner's hold
     * @param failed how many masters failed to answer the release
     * @param masters how many masters there are
     * @param majority how many releases are needed
     * @param cause the first failure
     * @return fewer than a majority of masters released it; typed as the cause
     */
    static LockException releaseQuorumNotReached(String redLock, int released, int failed, int masters, int majority,
                                                 Throwable cause) {
        return KindFailures.typedAs(cause, "RedLock '" + redLock + "': only " + released + " of " + masters
                + " masters released it and " + failed + " failed; a majority of " + majority + " is needed: "
                + describe(cause));
    }

    /**
     * @param redLock the RedLock's name
     * @param owner the owner that tried to release it
     * @param notHeld how many masters said the owner holds nothing there
     * @param masters how many masters there are
     * @return too many masters say the owner holds nothing for a majority to release it
     */
    static IllegalMonitorStateException notHeldByMajority(String redLock, long owner, int notHeld, int masters) {
        return new IllegalMonitorStateException("RedLock '" + redLock + "' is not held by owner " + owner
                + " of this client: " + notHeld + " of " + masters + " masters do not hold it");
    }

    /**
     * @param reachable how many masters could be connected
     * @param masters how many masters are configured
     * @param majority how many are needed
     * @param first why the first unreachable master could not be connected
     * @return too few RedLock masters can be reached to open a client's RedLocks; typed as {@code first}
     */
    static LockException mastersUnreachable(int reachable, int masters, int majority, LockException first) {
        return KindFailures.typedAs(first, "only " + reachable + " of " + masters
                + " RedLock masters can be reached, a majority of " + majority + " is needed: " + describe(first));
    }
}
