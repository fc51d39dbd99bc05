package io.latchkey.internal.lock;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.spi.Hold;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition's handle on a hold: the hold's token and loss notice, and one level to
 * release. Thread-safe.
 */
final class HoldHandle implements LockHold {

    private final LockFacade lock;
    private final Hold hold;
    private final AtomicBoolean closed = new AtomicBoolean();

    HoldHandle(LockFacade lock, Hold hold) {
        this.lock = lock;
        this.hold = hold;
    }

    @Override
    public DistributedLock lock() {
        return lock;
    }

    @Override
    public long ownerId() {
        return hold.owner();
    }

    @Override
    public long fencingToken() {
        return hold.token();
    }

    @Override
    public List<LockHold> parts() {
        return List.of(this);
    }

    @Override
    public boolean isValid() {
        return !closed.get() && hold.isHeld();
    }

    @Override
    public CompletableFuture<Void> leaseLost() {
        // One copy per hold: every handle returns the same future, and a caller completing or
        // cancelling it does not touch the hold's own notice.
        return hold.notice();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            lock.close(hold);
        }
    }

    @Override
    public String toString() {
        return "LockHold{lock '" + hold.lockName() + "', owner " + hold.owner() + ", token " + hold.token()
                + (isValid() ? "" : hold.isLost() ? ", lost" : ", released") + '}';
    }
}
