package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * Redis did not answer a lock call within the command timeout ({@link LockConfig#commandTimeout()};
 * for one master of a RedLock acquire, {@link LockConfig#redLockAttemptTimeout()}). Redis may be
 * paused, overloaded, or far away; the connection itself is still up.
 *
 * <p><b>The call may still run</b> once Redis gets to it. The library takes care of that for the
 * calls that change a hold: an acquire that times out is undone as soon as Redis answers again
 * (the caller holds nothing), and an {@code unlock()} that times out is completed as soon as
 * Redis answers again, so the caller must <em>not</em> unlock again. A {@code forceUnlock()}
 * that times out is not repeated; check {@code isLocked()} if it matters.
 *
 * <p>What the caller can do: try again later, typically after a back-off; a steady stream of
 * these means Redis is too slow for the configured command timeout.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception for a call that Redis did not answer in time.
     *
     * @param message what timed out, naming the lock and the timeout
     * @param cause the underlying failure, or null
     */
    public LockTimeoutException(@Nullable String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
