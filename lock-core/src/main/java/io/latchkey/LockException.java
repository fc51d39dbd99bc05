package io.latchkey;

/**
 * A lock operation failed because Redis was unreachable, too slow, or refused the command.
 *
 * <p>It never means "the lock is held by someone else": {@code tryLock} answers that with
 * {@code false}. When it is thrown from an acquire, the caller holds nothing.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception without a cause.
     *
     * @param message what failed, naming the lock
     */
    public LockException(String message) {
        super(message);
    }

    /**
     * Creates an exception with the failure that caused it.
     *
     * @param message what failed, naming the lock
     * @param cause the underlying failure
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
