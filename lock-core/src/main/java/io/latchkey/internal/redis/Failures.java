package io.latchkey.internal.redis;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.PartitionSelectorException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Reads a failure as a future reports it: whether Redis may still run the call, whether a later
 * try can get past it, and which of the library's exception types it maps to. Builds no
 * exception: {@link LockExceptions} does, from the {@link Kind} read here. Stateless.
 */
public final class Failures {

    /** What a failure means to the caller; each is one exception type. */
    enum Kind {
        /** Redis did not answer in time: {@link LockTimeoutException}. */
        TIMEOUT,
        /** Redis could not be reached: {@link LockConnectionException}. */
        CONNECTION,
        /** Redis answered with an error: {@link LockRefusedException}. */
        REFUSED,
        /** The client was closed under the call: a plain {@link LockException}. */
        CLOSED,
        /** Anything else: a plain {@link LockException}. */
        OTHER
    }

    /** Error replies that say "not now" rather than "no": the same call sent later can succeed. */
    private static final List<String> PASSING_REFUSALS =
            List.of("CLUSTERDOWN", "TRYAGAIN", "LOADING", "READONLY", "MASTERDOWN", "BUSY");
    /** A failure's causes are followed this deep at most, in case a chain loops. */
    static final int MAX_CAUSES = 50;

    private Failures() {
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis did not answer in time: the command may still run later
     */
    public static boolean isTimeout(Throwable failure) {
        return kindOf(unwrap(failure)) == Kind.TIMEOUT;
    }

    /**
     * @param failure a failure as a future reports it
     * @return true unless Redis answered the call (an error reply, or an ownership verdict):
     *     after a reset, closed or timed-out connection, or a command rejected or cancelled around
     *     a disconnect, the call may or may not have run, and only Redis can tell later
     */
    public static boolean isOutcomeUnknown(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException || cause instanceof LockRefusedException
                    || cause instanceof IllegalMonitorStateException || cause instanceof NotSent) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether an acquire that failed so needs settling: unlike {@link #isOutcomeUnknown}, which
     * also covers a call to be sent again, this leaves out a command that Lettuce rejected unsent
     * while the connection was down ("Currently not connected"), which certainly did not run.
     *
     * @param failure a failure as a future reports it
     * @return true if the call may have run although Redis did not answer it
     */
    public static boolean mayHaveRun(Throwable failure) {
        if (!isOutcomeUnknown(failure)) {
            return false;
        }
        return !wasRejectedUnsent(failure);
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Lettuce rejected the command before sending it (see {@link #mayHaveRun}):
     *     it did not run, and may be sent again once the connection is back
     */
    public static boolean wasRejectedUnsent(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (isUnsent(cause)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A command that Lettuce rejected before sending it: while the connection was down, or in a
     * Cluster whose view had no master for the command's slot (mid-failover: "Cannot determine a
     * partition for slot"). Redis could not be reached for it, and it did not run.
     */
    private static boolean isUnsent(Throwable cause) {
        return cause instanceof PartitionSelectorException
                || (cause.getClass() == RedisException.class && String.valueOf(cause.getMessage()).startsWith("Currently not connected"));
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
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException) {
                // The error code is the reply's first word: BUSYKEY or BUSYGROUP is not BUSY.
                String message = String.valueOf(cause.getMessage());
                int end = message.indexOf(' ');
                return PASSING_REFUSALS.contains(end < 0 ? message : message.substring(0, end));
            }
        }
        return false;
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis answered the call with an error reply (or the call was refused as
     *     such): it did not run; a passing refusal ({@link #isPassingRefusal}) is one of these
     */
    public static boolean wasRefused(Throwable failure) {
        return kindOf(unwrap(failure)) == Kind.REFUSED;
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

    /**
     * @param failure a failure, or null
     * @return the failure's message, or its type if it has none, with any URI's credentials masked
     */
    public static String describe(@Nullable Throwable failure) {
        if (failure == null) {
            return "null";
        }
        String message = failure.getMessage();
        return Redaction.inText(message == null ? failure.getClass().getSimpleName() : message);
    }

    /**
     * @param failure an unwrapped failure, or null
     * @return what it means to the caller: the first failure along its causes that tells
     */
    static Kind kindOf(@Nullable Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (cause instanceof LockTimeoutException || cause instanceof RedisCommandTimeoutException
                    || cause instanceof TimeoutException) {
                return Kind.TIMEOUT;
            }
            if (cause instanceof LockRefusedException || cause instanceof RedisCommandExecutionException) {
                return Kind.REFUSED;
            }
            if (cause instanceof LockConnectionException || cause instanceof RedisConnectionException
                    || cause instanceof IOException || cause instanceof PartitionSelectorException) {
                return Kind.CONNECTION;
            }
            if (cause instanceof NotSent) {
                return Kind.CLOSED;
            }
            if (cause.getClass() == RedisException.class) {
                String message = String.valueOf(cause.getMessage());
                // Lettuce's words for a command that met a closed endpoint, or a connection that is down.
                if (message.startsWith("Connection is closed")) {
                    return Kind.CLOSED;
                }
                if (message.startsWith("Currently not connected") || message.startsWith("Connection closed")
                        || message.startsWith("Connection disconnected")) {
                    return Kind.CONNECTION;
                }
            }
        }
        return Kind.OTHER;
    }

    /**
     * A command that never left the client: the connection would not even take it (Lettuce
     * throws when its timer has stopped, as the client closes). Its outcome is known: it did not run.
     */
    static final class NotSent extends RuntimeException {

        private static final long serialVersionUID = 1L;

        NotSent(Throwable cause) {
            super("the command was not sent: " + cause.getMessage(), cause);
        }
    }
}
