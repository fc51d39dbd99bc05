package io.latchkey.internal.lock;

import java.time.Duration;

/**
 * The Redis side of one lock kind, as {@link LockFacade} serves it: acquiring for the one loop,
 * the queries, and the lease the kind's watchdog keeps. Implementations are thread-safe and never
 * block.
 */
public interface LockProtocol extends AcquireProtocol, LockQueries {

    /** @return the lease that {@code lock()} and {@code tryLock(wait)} take, renewed while held */
    Duration watchdogTimeout();
}
