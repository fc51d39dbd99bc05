package io.latchkey.spi;

import java.util.Optional;

/**
 * The Redis side of one lock kind, as lock-core's facade serves it ({@link LockFacades#serve}):
 * acquiring for the one loop, the queries, and where the client records its holds. The lease of
 * {@code lock()} is not the protocol's to answer: the facade is given it, from the kind's
 * {@link LockServer#watchdogLease()}.
 * Implementations are thread-safe and never block.
 */
public interface LockProtocol extends AcquireProtocol, LockQueries {

    /**
     * @return the plain lock this kind is, or decorates (local hand-off), for combinators that
     *     compose the plain locks an application already has ({@code RedLock.of}); empty for other kinds
     */
    default Optional<PlainLock> plainLock() {
        return Optional.empty();
    }
}
