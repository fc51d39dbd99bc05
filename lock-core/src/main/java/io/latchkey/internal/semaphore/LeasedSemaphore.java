package io.latchkey.internal.semaphore;

import io.latchkey.DistributedSemaphore;
import io.latchkey.SemaphorePermit;
import io.latchkey.internal.lock.Acquisitions;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@link DistributedSemaphore} over a {@link SemaphoreProtocol}: validates arguments, gives every
 * acquisition an owner of its own, runs the one acquire loop through {@link Acquisitions}, and
 * hands each grant out as a {@link LeasedPermit}. Thread-safe; holds no per-call state.
 */
public final class LeasedSemaphore implements DistributedSemaphore {

    private final SemaphoreProtocol protocol;
    private final Acquisitions acquisitions;
    private final LeaseTerm watchdogLease;

    /**
     * Serves a semaphore.
     *
     * @param protocol the semaphore's Redis side
     * @param watchdogLease the lease of {@code acquire()}, {@code tryAcquire(wait)} and
     *     {@code acquireAsync()}, renewed while held: the client's
     *     {@link io.latchkey.internal.lock.LockContext#watchdogLease()}
     */
    public LeasedSemaphore(SemaphoreProtocol protocol, Duration watchdogLease) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.watchdogLease = LeaseTerm.watchdog(watchdogLease);
        this.acquisitions = new Acquisitions(protocol);
    }

    @Override
    public String getName() {
        return protocol.name();
    }

    @Override
    public int permits() {
        return protocol.limit();
    }

    @Override
    public int availablePermits() {
        return acquisitions.await(protocol.availablePermits());
    }

    @Override
    public SemaphorePermit acquire() throws InterruptedException {
        long owner = SemaphoreProtocol.newOwner();
        return permit(acquisitions.start(owner, watchdogLease, Acquisitions.forever()).awaitInterruptibly(protocol.name()));
    }

    @Override
    public Optional<SemaphorePermit> tryAcquire(Duration waitTime) throws InterruptedException {
        long wait = Acquisitions.waitNanos(waitTime);
        long owner = SemaphoreProtocol.newOwner();
        return Optional.ofNullable(acquisitions.start(owner, watchdogLease, wait).awaitInterruptibly(protocol.name()))
                .map(this::permit);
    }

    @Override
    public Optional<SemaphorePermit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = Acquisitions.waitNanos(waitTime);
        LeaseTerm lease = Acquisitions.fixedLease(leaseTime);
        long owner = SemaphoreProtocol.newOwner();
        return Optional.ofNullable(acquisitions.start(owner, lease, wait).awaitInterruptibly(protocol.name())).map(this::permit);
    }

    @Override
    public CompletableFuture<SemaphorePermit> acquireAsync() {
        return acquisitions.start(SemaphoreProtocol.newOwner(), watchdogLease, Acquisitions.forever()).forCaller(this::permit);
    }

    @Override
    public CompletableFuture<Optional<SemaphorePermit>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = Acquisitions.waitNanos(waitTime);
        LeaseTerm lease = Acquisitions.fixedLease(leaseTime);
        return acquisitions.start(SemaphoreProtocol.newOwner(), lease, wait)
                .forCaller(hold -> Optional.ofNullable(hold).map(this::permit));
    }

    private SemaphorePermit permit(Hold hold) {
        return new LeasedPermit(this, hold, protocol.permitId(hold.owner()));
    }

    /** A permit's close: returns it, on the caller's thread. */
    void close(Hold hold) {
        acquisitions.await(acquisitions.close(hold));
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{" + protocol.name() + ", permits " + protocol.limit() + '}';
    }
}
