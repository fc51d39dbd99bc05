package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A part's hold as a multi-lock hold shows it: its lock, owner, token and loss notice, but no
 * release of its own, since the multi-lock's hold is all or none. Thread-safe.
 */
final class PartHandle implements LockHold {

    private final MultiHoldHandle whole;
    private final LockHold part;
    /** The part's notice as the multi-lock hold watches it is not the one that callers may complete. */
    private final CompletableFuture<Void> notice;

    PartHandle(MultiHoldHandle whole, LockHold part) {
        this.whole = whole;
        this.part = part;
        this.notice = part.leaseLost().copy();
    }

    @Override
    public DistributedLock lock() {
        return part.lock();
    }

    @Override
    public long ownerId() {
        return part.ownerId();
    }

    @Override
    public long fencingToken() {
        return part.fencingToken();
    }

    @Override
    public List<LockHold> parts() {
        return List.of(this);
    }

    @Override
    public boolean isValid() {
        return whole.isValid() && part.isValid();
    }

    @Override
    public CompletableFuture<Void> leaseLost() {
        return notice;
    }

    /** @throws IllegalStateException always: a part is released with the multi-lock's hold */
    @Override
    public void close() {
        throw new IllegalStateException("a part of a multi-lock hold cannot be closed on its own: close the multi-lock's "
                + "hold (" + whole + ')');
    }

    @Override
    public String toString() {
        return part.toString();
    }
}
