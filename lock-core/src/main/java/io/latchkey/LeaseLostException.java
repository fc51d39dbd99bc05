package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * The owner's lease was lost before it released the hold: the hold disappeared from Redis (it ran
 * out, someone called {@code forceUnlock}, a failover dropped it), a fixed lease ran out, or Redis
 * could not be reached for longer than the lease had left. Thrown by {@code unlock()},
 * {@link Lease#close()} and a re-entry of the owner, instead of a bare
 * {@link IllegalMonitorStateException}, so that callers can tell "lost" from "never held".
 *
 * <p>Another owner may have held the lock since the lease was lost: whatever the owner did after
 * that moment was not protected by the lock. An {@code unlock()} or {@code close()} that throws
 * this ends the hold with all its re-entries; the owner's next acquisition is a new hold.
 */
public class LeaseLostException extends IllegalMonitorStateException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which lock and owner, and how the lease was lost
     */
    public LeaseLostException(@Nullable String message) {
        super(message);
    }
}
