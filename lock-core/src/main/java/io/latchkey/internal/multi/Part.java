package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.Acquisition;
import io.latchkey.internal.lock.LockFacade;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One lock of a multi-lock, as the multi-lock drives it: started for an owner with a lease and a
 * wait, given up with a cancel that says when nothing is left. Implementations are thread-safe
 * and never block.
 */
interface Part {

    /** @return the lock as the application gave it */
    DistributedLock lock();

    /** @return what identifies the lock on its client, for the record of multi-lock holds */
    Object identity();

    /**
     * @return where the lock lives, as every client configured for that Redis names it (its
     *     address), if the client can tell; it orders parts of one name
     */
    Optional<String> place();

    /**
     * Starts one acquisition.
     *
     * @param owner the owner
     * @param leaseTime a fixed lease, or null for the part's own watchdog lease
     * @param waitNanos the longest wait, {@link Long#MAX_VALUE} for as long as it takes
     * @return the running acquisition, whose grant is the part's hold; null when the wait ran out
     */
    Acquisition<LockHold> start(long owner, @Nullable Duration leaseTime, long waitNanos);

    /**
     * @param lock a lock the application gave
     * @param timer the multi-lock client's timer
     * @param foreignGraceNanos see {@link ForeignPart}
     * @return the part for it: Latchkey's own locks are driven through their acquire loop,
     *     any other {@link DistributedLock} through its public async methods
     */
    static Part of(DistributedLock lock, Timer timer, long foreignGraceNanos) {
        return lock instanceof LockFacade facade ? new FacadePart(facade) : new ForeignPart(lock, timer, foreignGraceNanos);
    }
}
