package io.latchkey;

import org.jspecify.annotations.Nullable;

/**
 * Redis answered a lock call with an error: for example
 * {@code WRONGTYPE} (another key of another type has the lock's name), {@code NOPERM} or
 * {@code NOAUTH}/{@code WRONGPASS} (the user lacks a permission or the credentials are wrong),
 * {@code READONLY} (the client talks to a replica, typically for a moment after a failover),
 * {@code CROSSSLOT}, {@code OOM} (maxmemory reached), {@code LOADING}, {@code BUSY}, or an error
 * raised by a lock script. The message, and the cause's message, carry Redis's error reply.
 *
 * <p>Redis answered, so the outcome is not in doubt. An {@code unlock()} refused for a passing
 * reason ({@code READONLY}, {@code LOADING}, {@code BUSY}, {@code CLUSTERDOWN},
 * {@code MASTERDOWN}, {@code TRYAGAIN}) is completed by the library once Redis takes it, and its
 * message says that the caller need not retry; nothing else refused is repeated. The lock scripts
 * read before they write, so an error about the lock's key or the server's state stops them
 * before any change; but Redis does not roll a script back, so one stopped halfway (an ACL that
 * allows its first write and not a later one) keeps what it wrote.
 *
 * <p>What the caller can do: most of these are not cured by trying again, but by fixing the
 * configuration, the ACL or the data (the message says which); {@code READONLY}, {@code LOADING},
 * {@code BUSY} and {@code OOM} may pass once Redis has failed over, loaded, finished a script, or
 * freed memory.
 */
public class LockRefusedException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception for a call that Redis answered with an error.
     *
     * @param message what Redis refused, naming the lock and quoting the error reply
     * @param cause the underlying failure, or null
     */
    public LockRefusedException(@Nullable String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
