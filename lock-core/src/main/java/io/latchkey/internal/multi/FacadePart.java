package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.Acquisition;
import io.latchkey.internal.lock.LockFacade;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A part that is one of Latchkey's own locks (any kind): driven through its own acquire loop, so
 * it waits by its own messages, takes its own watchdog lease and is renewed by its own client.
 */
final class FacadePart implements Part {

    private final LockFacade lock;

    FacadePart(LockFacade lock) {
        this.lock = lock;
    }

    @Override
    public DistributedLock lock() {
        return lock;
    }

    @Override
    public Object identity() {
        return lock.identity();
    }

    @Override
    public Optional<String> place() {
        // Only the plain lock says where it lives; the others are ordered by name alone.
        return ReentrantLockProtocol.behind(lock).map(plain -> plain.context().config())
                .map(config -> config.address().orElse(String.join(",", config.clusterAddresses())));
    }

    @Override
    public Acquisition<LockHold> start(long owner, @Nullable Duration leaseTime, long waitNanos) {
        return lock.acquisition(owner, leaseTime, waitNanos);
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
