package io.latchkey.internal.redis;

import static io.latchkey.internal.redis.Failures.describe;
import static io.latchkey.internal.redis.Failures.unwrap;

import io.latchkey.LockConnectionException;
import io.latchkey.LeaseLostException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The one place that builds the {@link LockException}s and {@link IllegalMonitorStateException}s
 * the library throws, as Lettuce's {@code ExceptionFactory} is for Lettuce: one method per
 * situation, named after it, and one mapping from what the Redis client reports to the type a
 * caller can act on:
 *
 * <table>
 * <caption>What a failure becomes</caption>
 * <tr><th>the Redis client reports</th><th>the caller sees</th></tr>
 * <tr><td>{@code RedisCommandTimeoutException}, {@code TimeoutException}</td>
 *     <td>{@link LockTimeoutException}</td></tr>
 * <tr><td>{@code RedisConnectionException}, an {@code IOException} (reset, closed channel),
 *     {@code RedisException} "Currently not connected", "Connection closed", "Connection
 *     disconnected"</td><td>{@link LockConnectionException}</td></tr>
 * <tr><td>{@code RedisCommandExecutionException}: an error reply</td><td>{@link LockRefusedException}</td></tr>
 * <tr><td>{@code RedisException} "Connection is closed": the client's own {@code close()}</td>
 *     <td>{@link LockException}: the client is closed</td></tr>
 * <tr><td>a {@code LockException}, an {@code IllegalMonitorStateException}, a
 *     {@code CancellationException}</td><td>the same exception, unchanged</td></tr>
 * <tr><td>anything else</td><td>{@link LockException}</td></tr>
 * </table>
 *
 * <p>Which row a failure falls in is read by {@link Failures}; why a connect failed, by
 * {@code ConnectDiagnosis}. A situation that wraps an earlier failure (a release that did not
 * complete, a RedLock quorum that was not reached) takes that failure's type ({@link #typedAs}).
 * RedLock's own situations are built in lock-redlock, in its words, on {@link #typedAs}. Messages
 * name the lock and never show a password: text that did not come from here passes through
 * {@link Redaction}. Stateless.
 */
public final class LockExceptions {

    private static final String CLIENT_CLOSED = "the LockClient is closed";

    private LockExceptions() {
    }

    // ---- failures of Redis calls -------------------------------------------------------------

    /**
     * Maps the failure of one Redis call as the table above says.
     *
     * @param lock the lock the call was for
     * @param commandTimeout the bound the call ran under, for the message
     * @param failure what the Redis client reported, wrapped in a {@link CompletionException} or not
     * @return the exception the caller sees; exceptions that already carry lock semantics (a
     *     {@link LockException}, an {@link IllegalMonitorStateException}, a
     *     {@link CancellationException}) pass unchanged
     */
    public static RuntimeException translate(String lock, Duration commandTimeout, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LockException || cause instanceof IllegalMonitorStateException
                || cause instanceof CancellationException) {
            return (RuntimeException) cause;
        }
        return switch (Failures.kindOf(cause)) {
            case TIMEOUT -> timedOut(lock, commandTimeout, cause);
            case CONNECTION -> unreachable(lock, cause);
            case REFUSED -> refused(lock, cause);
            case CLOSED -> clientClosed(cause);
            case OTHER -> new LockException("Redis call for lock '" + lock + "' failed: " + describe(cause), cause);
        };
    }

    /**
     * @param lock the lock the call was for
     * @param timeout the time Redis had to answer
     * @param cause the timeout as the Redis client reported it, or null
     * @return Redis did not answer in time; the call may still run
     */
    public static LockTimeoutException timedOut(String lock, Duration timeout, Throwable cause) {
        return new LockTimeoutException("Redis did not answer within " + timeout + " for lock '" + lock
                + "'; the call may still run", cause);
    }

    /**
     * @param lock the lock the call was for
     * @param cause why Redis cannot be reached
     * @return Redis is unreachable: not connected, or the connection was lost
     */
    public static LockConnectionException unreachable(String lock, Throwable cause) {
        return new LockConnectionException("Redis is unreachable for lock '" + lock + "': " + describe(cause), cause);
    }

    /**
     * @param lock the lock the call was for
     * @param cause Redis's error reply
     * @return Redis answered the call with an error
     */
    public static LockRefusedException refused(String lock, Throwable cause) {
        return new LockRefusedException("Redis refused the call for lock '" + lock + "': " + describe(cause), cause);
    }

    /** @return a call was made on, or waited on, a closed client */
    public static LockException clientClosed() {
        return new LockException(CLIENT_CLOSED);
    }

    /**
     * @param cause how the call learned that the client is closed
     * @return a call was made on a closed client
     */
    public static LockException clientClosed(Throwable cause) {
        return new LockException(CLIENT_CLOSED, cause);
    }

    /** @return a wait was pending when its client was closed */
    public static LockException closedWhileWaiting() {
        return new LockException("the LockClient was closed while waiting");
    }

    /**
     * @param channel the unlock channel
     * @param cause why the subscription failed, as the Redis client reported it
     * @return the subscription that a waiter needs failed; typed as {@link #translate} types it
     */
    public static LockException subscribeFailed(String channel, Throwable cause) {
        Throwable unwrapped = unwrap(cause);
        return typedAs(unwrapped, "cannot subscribe to " + channel + ": " + describe(unwrapped));
    }

    // ---- ownership and unknown outcomes ------------------------------------------------------

    /**
     * @param lock the lock's name
     * @param owner the owner that tried to release it
     * @return the owner holds no hold of the lock; nothing changed
     */
    public static IllegalMonitorStateException notHeld(String lock, long owner) {
        return new IllegalMonitorStateException("lock '" + lock + "' is not held by owner " + owner + " of this client");
    }

    /**
     * @param lock the read-write lock's name
     * @return what an owner that holds only the read lock gets when it asks for the write lock:
     *     it would wait for its own read hold to end, for ever
     */
    public static IllegalMonitorStateException upgradeRefused(String lock) {
        return new IllegalMonitorStateException("the write lock of read-write lock '" + lock + "' was asked for by an "
                + "owner that holds its read lock and not its write lock: an upgrade would wait for itself, so it is "
                + "refused; release the read lock first (the other way round works: a writer may take the read lock, then "
                + "release the write lock)");
    }

    /**
     * @param lock the lock's name
     * @param owner the owner that released it
     * @param cause why the release did not complete: its answer was lost, or Redis refused it for
     *     a passing reason ({@link Failures#isPassingRefusal})
     * @return the release did not complete now and is completed by the library once Redis takes
     *     it; the caller must not retry. Typed as the cause
     */
    public static LockException releaseDeferred(String lock, long owner, Throwable cause) {
        Throwable unwrapped = unwrap(cause);
        return typedAs(unwrapped, "unlock of lock '" + lock + "' by owner " + owner + " did not complete ("
                + describe(unwrapped) + "); its lease is no longer renewed, and the release is completed as soon as "
                + "Redis answers again: the caller need not retry");
    }

    /**
     * @param lock the lock's name
     * @param asked how many replicas were asked to acknowledge the grant
     * @param acknowledged how many did, or -1 if WAIT's answer was lost
     * @param timeout how long they were given
     * @param cause why WAIT's answer was lost, or null
     * @return an acquisition that fewer replicas than asked acknowledged, and that was therefore
     *     given back: the lock is not held
     */
    public static LockException notAcknowledged(String lock, int asked, long acknowledged, Duration timeout, Throwable cause) {
        String how = acknowledged < 0 ? "the answer of WAIT was lost (" + describe(unwrap(cause)) + ")"
                : "only " + acknowledged + " of " + asked + " replicas acknowledged it within " + timeout;
        return new LockException("lock '" + lock + "' was granted but " + how
                + ", so the grant was released (replicaAcknowledgement with ReplicaShortfall.FAIL)",
                cause == null ? null : unwrap(cause));
    }

    /**
     * @param lock the lock's name
     * @param owner the owner
     * @return what closing a handle throws when its hold was already released by unlocks
     */
    public static IllegalMonitorStateException holdAlreadyReleased(String lock, long owner) {
        return new IllegalMonitorStateException("the hold of lock '" + lock + "' by owner " + owner
                + " was already released by unlock()");
    }

    /**
     * @param lock the lock's name
     * @param owner the owner whose lease was lost
     * @param how how it was lost; null only if read from a hold before its loss was marked, which
     *     the callers, reading it once the hold is lost, never do
     * @return what an unlock, a close or a re-entry of a hold whose lease was lost throws
     */
    public static LeaseLostException leaseLost(String lock, long owner, @Nullable String how) {
        return new LeaseLostException("the lease of lock '" + lock + "' held by owner " + owner + " was lost ("
                + how + "): another owner may have held the lock since, so what this owner did after that was not "
                + "protected by it; the hold is over");
    }

    /**
     * @param what the call being settled, for example {@code "release 3f"}
     * @param hold the hold it belongs to
     * @param cause why settling failed this time
     * @return what a later call of the same owner on the same lock fails with, unsent, while an
     *     earlier call of it cannot be settled; typed as the cause
     */
    public static LockException settleFailed(String what, Object hold, Throwable cause) {
        Throwable unwrapped = unwrap(cause);
        return typedAs(unwrapped, "cannot settle " + what + " of " + hold + ": " + describe(unwrapped));
    }

    // ---- connecting --------------------------------------------------------------------------

    /**
     * Whether a connect failed after it reached the server, with no refusal named: the server's
     * refusal of the login may have been lost on the way.
     *
     * @param failure why connecting failed
     * @return true if the server was reached and the failure names no refusal
     */
    public static boolean mayHideARefusal(Throwable failure) {
        return ConnectDiagnosis.mayHideARefusal(failure);
    }

    /**
     * @param where the URI or URIs the client tried, as the configuration gave them (they are
     *     redacted here)
     * @param cause why connecting failed
     * @return a {@link LockRefusedException} if Redis refused the credentials or a permission,
     *     else a {@link LockConnectionException}; the message names the likely cause: refused
     *     credentials, an untrusted or mismatched certificate, a plain connection to a TLS port,
     *     or an unreachable server
     */
    public static LockException connectFailed(String where, Throwable cause) {
        String shown = Redaction.inText(where);
        String message = "cannot connect to Redis at " + shown + ": "
                + ConnectDiagnosis.hint(cause, shown.contains("rediss"));
        return ConnectDiagnosis.refusedByRedis(cause) ? new LockRefusedException(message, cause) : new LockConnectionException(message, cause);
    }

    // ---- on the caller's thread --------------------------------------------------------------

    /**
     * The same failure again, made on the calling thread so that its stack trace shows where the
     * caller was, with the original as its cause and of the same type.
     *
     * @param lock the lock the call was for
     * @param failure how the call's future failed; not an {@link Error}, which the caller rethrows
     * @return a {@link LeaseLostException}, {@link IllegalMonitorStateException} or {@link LockException} of the failure's
     *     exact type, made here; another unchecked exception unchanged (also a subclass of
     *     {@code LockException} that is not the library's); a checked one as a {@link LockException}
     */
    public static RuntimeException onCallerThread(String lock, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LeaseLostException) {
            LeaseLostException here = new LeaseLostException(cause.getMessage());
            here.initCause(cause);
            return here;
        }
        if (cause instanceof IllegalMonitorStateException) {
            IllegalMonitorStateException here = new IllegalMonitorStateException(cause.getMessage());
            here.initCause(cause);
            return here;
        }
        if (cause instanceof LockException lockException) {
            Class<?> type = cause.getClass();
            if (type == LockTimeoutException.class) {
                return new LockTimeoutException(cause.getMessage(), cause);
            } else if (type == LockConnectionException.class) {
                return new LockConnectionException(cause.getMessage(), cause);
            } else if (type == LockRefusedException.class) {
                return new LockRefusedException(cause.getMessage(), cause);
            } else if (type == LockException.class) {
                return new LockException(cause.getMessage(), cause);
            }
            return lockException;
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return typedAs(cause, "lock '" + lock + "' failed: " + describe(cause));
    }

    // ---- typed as a cause -------------------------------------------------------------------

    /**
     * @param cause the failure the new exception wraps, unwrapped, or null
     * @param message the new exception's message
     * @return a {@link LockException} of the type {@link #translate} gives the cause: a
     *     {@link LockTimeoutException}, {@link LockConnectionException} or {@link LockRefusedException}
     *     if the cause is one of those situations, else a plain {@link LockException}
     */
    public static LockException typedAs(@Nullable Throwable cause, String message) {
        return switch (Failures.kindOf(cause)) {
            case TIMEOUT -> new LockTimeoutException(message, cause);
            case CONNECTION -> new LockConnectionException(message, cause);
            case REFUSED -> new LockRefusedException(message, cause);
            case CLOSED, OTHER -> new LockException(message, cause);
        };
    }
}
