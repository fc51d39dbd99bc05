package io.latchkey.internal.semaphore;

import io.latchkey.DistributedSemaphore;
import io.latchkey.SemaphorePermit;
import io.latchkey.spi.Hold;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** One permit: a hold of its own, with its lease, its loss notice and its id. Thread-safe. */
final class LeasedPermit implements SemaphorePermit {

    private final LeasedSemaphore semaphore;
    private final Hold hold;
    private final String id;
    private final AtomicBoolean closed = new AtomicBoolean();

    LeasedPermit(LeasedSemaphore semaphore, Hold hold, String id) {
        this.semaphore = semaphore;
        this.hold = hold;
        this.id = id;
    }

    @Override
    public DistributedSemaphore semaphore() {
        return semaphore;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public boolean isValid() {
        return !closed.get() && hold.isHeld();
    }

    @Override
    public CompletableFuture<Void> leaseLost() {
        return hold.notice();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            semaphore.close(hold);
        }
    }

    @Override
    public String toString() {
        return "SemaphorePermit{semaphore '" + hold.lockName() + "', id " + id
                + (isValid() ? "" : hold.isLost() ? ", lost" : ", returned") + '}';
    }
}
