package io.latchkey.spi;

import io.latchkey.internal.lock.ReentrantLockProtocol;
import java.time.Duration;
import java.util.Optional;

/**
 * The Redis side of one lock kind, as {@link LockFacade} serves it: acquiring for the one loop,
 * the queries, the lease the kind's watchdog keeps, and where the client records its holds.
 * Implementations are thread-safe and never block.
 */
public interface LockProtocol extends AcquireProtocol, LockQueries {

    /** @return the lease that {@code lock()} and {@code tryLock(wait)} take, renewed while held */
    Duration watchdogTimeout();

    /**
     * @return the plain lock this kind is, or decorates (local hand-off), for combinators that
     *     compose the plain locks an application already has ({@code RedLock.of}); empty for other kinds
     */
    default Optional<ReentrantLockProtocol> plainLock() {
        return Optional.empty();
    }
}
