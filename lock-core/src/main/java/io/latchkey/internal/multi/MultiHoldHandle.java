package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition's handle on a multi-lock hold: its parts' handles, the hold's loss notice, and
 * one level of every part to release. It has no fencing token of its own: each part has one.
 * Thread-safe.
 */
final class MultiHoldHandle implements LockHold {

    private final MultiLock lock;
    private final MultiHold hold;
    private final List<LockHold> parts;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param partHolds the parts' handles of this acquisition, in acquisition order */
    MultiHoldHandle(MultiLock lock, MultiHold hold, List<LockHold> partHolds) {
        this.lock = lock;
        this.hold = hold;
        this.parts = partHolds.stream().<LockHold>map(part -> new PartHandle(this, part)).toList();
    }

    @Override
    public DistributedLock lock() {
        return lock;
    }

    @Override
    public long ownerId() {
        return hold.owner();
    }

    /** @throws UnsupportedOperationException always: each part has a token of its own */
    @Override
    public long fencingToken() {
        throw new UnsupportedOperationException("a multi-lock hold has no fencing token of its own: use the token of each of "
                + "its parts()");
    }

    @Override
    public List<LockHold> parts() {
        return parts;
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
            lock.close(hold);
        }
    }

    /** Gives this handle's level back unseen: the acquisition it came from was cancelled as it was granted. */
    void handBack() {
        if (closed.compareAndSet(false, true)) {
            hold.leave();
        }
    }

    @Override
    public String toString() {
        return "LockHold{multi-lock " + hold.name() + ", owner " + hold.owner()
                + (isValid() ? "" : hold.isLost() ? ", lost" : ", released") + '}';
    }
}
