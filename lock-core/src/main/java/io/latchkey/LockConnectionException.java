package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * Redis cannot be reached: the client is not connected (it keeps reconnecting in the
 * background), the connection was lost or reset, or a new connection was refused or could not
 * be opened (also at {@link LockClient#create(LockConfig)}, for a closed port or a failed TLS
 * handshake).
 *
 * <p>A call rejected while the client was disconnected never reached Redis. A call in flight when
 * the connection broke may have run; as for {@link LockTimeoutException}, the library settles an
 * acquire or release whose answer was lost on its own once Redis answers again, so the caller
 * must not unlock again.
 *
 * <p>What the caller can do: try again later; calls succeed again once the client has
 * reconnected, without any action (a {@link LockClient} that could not be created must be created
 * again).
 */
public class LockConnectionException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception for a call that could not reach Redis.
     *
     * @param message what could not reach Redis, naming the lock or the address (without password)
     * @param cause the underlying failure, or null
     */
    public LockConnectionException(@Nullable String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
