package io.latchkey.spi;

import io.latchkey.DistributedLock;
import io.latchkey.internal.lock.LockFacade;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import java.time.Duration;
import java.util.Optional;

/**
 * How a lock kind's protocol becomes the {@link DistributedLock} an application uses, and the
 * way back for combinators: every kind is served by lock-core's one facade (argument checks,
 * owners, blocking, async and cancel semantics, the one acquire loop), which a kind never sees.
 * One of the SPI's three ways into lock-core's internals, with {@link KindFailures} and
 * {@link LocalHandOffs}. Stateless.
 */
public final class LockFacades {

    private LockFacades() {
    }

    /**
     * @param protocol the kind's Redis side
     * @param watchdogLease the lease that {@code lock()} and {@code tryLock(wait)} take, renewed
     *     while held: the kind's {@link LockServer#watchdogLease()} (a RedLock's: the shortest of
     *     its masters')
     * @return the lock, thread-safe
     */
    public static DistributedLock serve(LockProtocol protocol, Duration watchdogLease) {
        return new LockFacade(protocol, watchdogLease);
    }

    /**
     * For combinators that compose the plain locks an application already has ({@code RedLock.of}).
     *
     * @param lock any lock
     * @return its plain lock, if it is a lock of {@code LockClient.getLock}
     */
    public static Optional<PlainLock> plainLockBehind(DistributedLock lock) {
        return ReentrantLockProtocol.behind(lock);
    }
}
