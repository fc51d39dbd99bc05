package io.latchkey.internal.rw;

import io.latchkey.spi.Hold;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The local readers of one {@link ReadShare}, by owner: each one's token, its levels (at least one
 * while it is here) and its {@link Hold} once the acquire loop recorded the grant, which is what a
 * confirmation or a loss of the shared hold reaches.
 *
 * <p>Not thread-safe: guarded by the owning share's monitor, so that each change here is one step
 * of a transition of the share.
 */
final class AdmittedReaders {

    private final Map<Long, Reader> readers = new HashMap<>();

    /** The owner reads here from now on, with one level of the grant of {@code token}. */
    void admit(long owner, long token) {
        readers.put(owner, new Reader(token));
    }

    /** @return whether the owner reads here by the grant of {@code token}; if so, it has one more level */
    boolean reenter(long owner, long token) {
        Reader reader = readers.get(owner);
        if (reader == null || reader.token != token) {
            return false;
        }
        reader.levels++;
        return true;
    }

    /** @return whether the owner reads here */
    boolean contains(long owner) {
        return readers.containsKey(owner);
    }

    /** @return the owner's levels here; 0 if it reads nothing here */
    int levels(long owner) {
        Reader reader = readers.get(owner);
        return reader == null ? 0 : reader.levels;
    }

    /**
     * The owner, who reads here, gives up one level.
     *
     * @return whether that was its last level, and it left
     */
    boolean leave(long owner) {
        Reader reader = readers.get(owner);
        if (reader == null || --reader.levels > 0) {
            return false;
        }
        readers.remove(owner);
        return true;
    }

    /**
     * The acquire loop recorded the grant of {@code token} in the owner's hold.
     *
     * @return whether the owner still reads here by that grant; if so, the hold is its from now on
     */
    boolean record(long owner, long token, Hold hold) {
        Reader reader = readers.get(owner);
        if (reader == null || reader.token != token) {
            return false;
        }
        reader.hold = hold;
        return true;
    }

    /**
     * The acquire loop could not record the grant of {@code token}: a re-entry's level is given back here.
     *
     * @return true if it was the owner's first grant, whose one level the caller releases
     */
    boolean giveBack(long owner, long token, boolean reentry) {
        Reader reader = readers.get(owner);
        if (reader == null || reader.token != token) {
            return false;
        }
        if (reentry) {
            reader.levels--;
            return false;
        }
        return true;
    }

    /** @return whether {@code hold} is the one recorded for its owner here */
    boolean isRecorded(Hold hold) {
        Reader reader = readers.get(hold.owner());
        return reader != null && reader.hold == hold;
    }

    /** @return the readers' holds recorded so far */
    List<Hold> holds() {
        List<Hold> holds = new ArrayList<>();
        for (Reader reader : readers.values()) {
            if (reader.hold != null) {
                holds.add(reader.hold);
            }
        }
        return holds;
    }

    /** Every reader is gone (the shared hold was lost). */
    void clear() {
        readers.clear();
    }

    boolean isEmpty() {
        return readers.isEmpty();
    }

    int size() {
        return readers.size();
    }

    /** A local reader: its levels, its token, its hold once recorded. */
    private static final class Reader {
        private final long token;
        private int levels = 1;
        private @Nullable Hold hold;

        Reader(long token) {
            this.token = token;
        }
    }
}
