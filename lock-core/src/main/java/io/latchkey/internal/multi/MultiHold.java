package io.latchkey.internal.multi;

import io.latchkey.LockHold;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold of one multi-lock, as this client knows it: from the first grant of every part
 * to the last release, or until the lease of any part is lost. Its levels are the multi-lock's
 * grants not yet released; each took one level of every part. Thread-safe.
 */
final class MultiHold {

    private final MultiHolds registry;
    private final MultiHolds.Key key;
    private final String name;
    private final CompletableFuture<Void> lost = new CompletableFuture<>();
    /** What every handle shows: a caller completing or cancelling it does not touch {@link #lost}. */
    private final CompletableFuture<Void> notice = lost.copy();
    /** Guarded by this. */
    private int levels;
    /** Guarded by this: released to the last level, or ended after a loss. */
    private boolean over;
    /** Set once, before {@link #lost} completes. */
    private volatile @Nullable String lossReason;

    MultiHold(MultiHolds registry, MultiHolds.Key key, String name) {
        this.registry = registry;
        this.key = key;
        this.name = name;
    }

    MultiHolds.Key key() {
        return key;
    }

    long owner() {
        return key.owner();
    }

    String name() {
        return name;
    }

    /** Listens to the parts' own loss notices: the first loss of any part is the hold's. */
    void watch(List<LockHold> partHolds) {
        for (LockHold part : partHolds) {
            part.leaseLost().whenComplete((ignored, failure) -> {
                if (failure == null) {
                    lose("the lease of its part '" + part.lock().getName() + "' was lost");
                }
            });
        }
    }

    /** @return true if one more level was taken; false if the hold is over and a new one must start */
    synchronized boolean enter() {
        if (over) {
            return false;
        }
        levels++;
        return true;
    }

    /** @return the number of levels not yet released */
    synchronized int levels() {
        return levels;
    }

    /** @return true while held: not released, not lost */
    synchronized boolean isHeld() {
        return !over && !lost.isDone();
    }

    boolean isLost() {
        return lost.isDone();
    }

    @Nullable String lossReason() {
        return lossReason;
    }

    CompletableFuture<Void> notice() {
        return notice;
    }

    /** The hold is lost: the first call wins. */
    void lose(String how) {
        synchronized (this) {
            if (over || lost.isDone() || lossReason != null) {
                return;
            }
            lossReason = how;
        }
        lost.complete(null);
    }

    /** One level released; the last one ends the hold. */
    void leave() {
        synchronized (this) {
            if (over || --levels > 0) {
                return;
            }
            over = true;
        }
        registry.remove(this);
    }

    /** Ends the hold with all its levels: its owner was told that it was lost. */
    void end() {
        synchronized (this) {
            over = true;
            levels = 0;
        }
        registry.remove(this);
    }

    @Override
    public String toString() {
        return "MultiHold{" + name + ", owner " + key.owner() + '}';
    }
}
