package io.latchkey.internal.redis;

import io.latchkey.LockException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The one place where failures of Redis calls become {@link LockException}s. */
public final class RedisFailures {

    private static final List<String> PASSING_REFUSALS =
            List.of("CLUSTERDOWN", "TRYAGAIN", "LOADING", "READONLY", "MASTERDOWN", "BUSY");

    private RedisFailures() {
    }

    /**
     * @param lockName the lock the call was for
     * @param commandTimeout the bound the call ran under, for the message
     * @param failure what the Redis client reported
     * @return the exception the caller sees; exceptions that already carry lock semantics
     *     (a {@link LockException}, an {@link IllegalMonitorStateException}) pass unchanged
     */
    public static RuntimeException toLockException(String lockName, Duration commandTimeout, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LockException || cause instanceof IllegalMonitorStateException
                || cause instanceof CancellationException) {
            return (RuntimeException) cause;
        }
        if (cause instanceof RedisCommandTimeoutException) {
            return new LockException("Redis did not answer within " + commandTimeout + " for lock '" + lockName + "'", cause);
        }
        if (cause instanceof RedisConnectionException) {
            return new LockException("Redis is unreachable for lock '" + lockName + "': " + cause.getMessage(), cause);
        }
        return new LockException("Redis call for lock '" + lockName + "' failed: " + cause.getMessage(), cause);
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis did not answer in time: the command may still run later
     */
    public static boolean isTimeout(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param failure a failure as a future reports it
     * @return true unless Redis answered the call (an error reply, or an ownership verdict):
     *     after a reset, closed or timed-out connection, or a command rejected or cancelled around
     *     a disconnect, the call may or may not have run, and only Redis can tell later
     */
    public static boolean isOutcomeUnknown(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException || cause instanceof IllegalMonitorStateException
                    || cause instanceof NotSent) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis refused the call for a passing reason and did not run it: a Cluster
     *     slot without a master during a failover ({@code CLUSTERDOWN}), a slot in migration
     *     ({@code TRYAGAIN}), a server loading its data ({@code LOADING}), a replica that is not
     *     (yet) the master ({@code READONLY}, {@code MASTERDOWN}), a script running too long
     *     ({@code BUSY}); the same call sent later can succeed
     */
    public static boolean isPassingRefusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException) {
                String message = String.valueOf(cause.getMessage());
                return PASSING_REFUSALS.stream().anyMatch(message::startsWith);
            }
        }
        return false;
    }

    /** A command that never left the client: the connection would not even take it. */
    static final class NotSent extends RuntimeException {

        private static final long serialVersionUID = 1L;

        NotSent(Throwable cause) {
            super("the command was not sent: " + cause.getMessage(), cause);
        }
    }

    /**
     * @param failure a failure as a future reports it
     * @return the failure without the {@link CompletionException} or {@link ExecutionException} wrapper
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
