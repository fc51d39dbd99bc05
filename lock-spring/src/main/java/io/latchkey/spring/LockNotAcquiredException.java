package io.latchkey.spring;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Locked @Locked} method was not run: its lock stayed held by another owner for the
 * whole wait, or the wait was interrupted (the cause is then the {@link InterruptedException},
 * and the thread's interrupt flag is set again). Redis failures are not this exception: they
 * stay {@link io.latchkey.LockException}s.
 */
public class LockNotAcquiredException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The lock's name. */
    private final String lockName;
    /** The wait that ran out. */
    private final Duration waitTime;

    /**
     * An exception naming the lock and the wait.
     *
     * @param lockName the lock's name; not null
     * @param waitTime the wait; not null
     * @param cause the interrupt, or null if the wait ran out
     */
    public LockNotAcquiredException(String lockName, Duration waitTime, @Nullable Throwable cause) {
        super("Lock '" + Objects.requireNonNull(lockName, "lockName") + "' was not acquired within "
                + Objects.requireNonNull(waitTime, "waitTime") + (cause == null ? "" : ": interrupted"), cause);
        this.lockName = lockName;
        this.waitTime = waitTime;
    }

    /** {@return the lock's name} */
    public String lockName() {
        return lockName;
    }

    /** {@return the wait that ran out or was interrupted} */
    public Duration waitTime() {
        return waitTime;
    }
}
