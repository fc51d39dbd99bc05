package io.latchkey.internal.multi;

import io.latchkey.LockHold;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * The multi-lock holds of one client's owners, shared by every multi-lock object over the same
 * locks (in the same order), as a client's plain holds are shared by its lock objects of one
 * name: one object may release what another took. Thread-safe.
 */
public final class MultiHolds {

    private final ConcurrentMap<Key, MultiHold> holds = new ConcurrentHashMap<>();

    /** Creates an empty record, one per client. */
    public MultiHolds() {
    }

    /** Which multi-lock, by its parts' identities in acquisition order, and which owner. */
    record Key(List<Object> parts, long owner) {
    }

    /** @return the owner's hold, held or lost, or null if none is known */
    @Nullable MultiHold current(List<Object> parts, long owner) {
        return holds.get(new Key(parts, owner));
    }

    /**
     * Records a grant of every part: the first one starts the owner's hold, the others re-enter it.
     *
     * @param partHolds the parts' holds of this grant; the first grant's tell the hold of a loss
     * @return the hold the grant belongs to; a lost one if it re-entered a hold given up meanwhile
     */
    MultiHold granted(List<Object> parts, long owner, String name, List<LockHold> partHolds) {
        Key key = new Key(parts, owner);
        MultiHold[] created = new MultiHold[1];
        MultiHold hold = holds.compute(key, (k, existing) -> {
            if (existing != null && existing.enter()) {
                return existing;
            }
            created[0] = new MultiHold(this, key, name);
            created[0].enter();
            return created[0];
        });
        if (created[0] != null) {
            created[0].watch(partHolds);
        }
        return hold;
    }

    /** The hold is over: the owner's next grant starts a new one. */
    void remove(MultiHold hold) {
        holds.remove(hold.key(), hold);
    }
}
