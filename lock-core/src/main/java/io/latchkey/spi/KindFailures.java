package io.latchkey.spi;

import io.latchkey.LockException;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.redis.Redaction;
import org.jspecify.annotations.Nullable;

/**
 * What a lock kind needs to read and word failures as lock-core does, so that its own
 * exceptions (a RedLock's quorum not reached) have the types and the redaction of every other:
 * the kind words its own situations, and takes the type from the failure it wraps. One of the
 * SPI's three ways into lock-core's internals, with {@link LockFacades} and
 * {@link LocalHandOffs}. Stateless.
 */
public final class KindFailures {

    private KindFailures() {
    }

    /**
     * @param failure a failure as a future reports it
     * @return the failure without the {@code CompletionException} or {@code ExecutionException} wrapper
     */
    public static Throwable unwrap(Throwable failure) {
        return Failures.unwrap(failure);
    }

    /**
     * @param failure a failure, or null
     * @return the failure's message, or its type if it has none, with any URI's credentials masked
     */
    public static String describe(@Nullable Throwable failure) {
        return Failures.describe(failure);
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis did not answer in time: the command may still run later
     */
    public static boolean isTimeout(Throwable failure) {
        return Failures.isTimeout(failure);
    }

    /**
     * @param cause the failure the new exception wraps, unwrapped, or null
     * @param message the new exception's message, in the kind's words
     * @return a {@link LockException} of the type lock-core gives the cause: a
     *     {@code LockTimeoutException}, {@code LockConnectionException} or
     *     {@code LockRefusedException} if the cause is one of those situations, else a plain one
     */
    public static LockException typedAs(@Nullable Throwable cause, String message) {
        return LockExceptions.typedAs(cause, message);
    }

    /** @return a call was made on, or waited on, a closed client: as lock-core says it */
    public static LockException clientClosed() {
        return LockExceptions.clientClosed();
    }

    /**
     * @param uri a Redis URI as configured, valid or not; not null
     * @return the URI without its credentials ({@code redis://***@host:port/0}), fit for messages and logs
     */
    public static String redactedUri(String uri) {
        return Redaction.uri(uri);
    }
}
