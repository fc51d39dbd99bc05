package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * A lock operation failed because Redis was unreachable, too slow, or refused the command.
 *
 * <p>It never means "the lock is held by someone else": {@code tryLock} answers that with
 * {@code false}. When it is thrown from an acquire, the caller holds nothing.
 *
 * <p>The library throws one of three subtypes wherever it can tell the failure apart, so that a
 * caller can act on it: {@link LockTimeoutException} (Redis did not answer in time; the call may
 * still run), {@link LockConnectionException} (Redis cannot be reached) and
 * {@link LockRefusedException} (Redis answered with an error). A plain {@code LockException} is
 * left for the rest, such as a call on a closed {@link LockClient}. The message names the lock
 * (or, for a failed connect, the address) and never shows a password.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception without a cause.
     *
     * @param message what failed, naming the lock
     */
    public LockException(@Nullable String message) {
        super(message);
    }

    /**
     * Creates an exception with the failure that caused it.
     *
     * @param message what failed, naming the lock
     * @param cause the underlying failure
     */
    public LockException(@Nullable String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
