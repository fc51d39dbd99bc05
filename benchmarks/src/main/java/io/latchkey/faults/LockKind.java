package io.latchkey.faults;

import java.util.Locale;

/**
 * The lock kinds the harness drives ({@code --kinds}), each through the client's own getter, so
 * that local hand-off (on by default) runs as an application's would: the plain lock's hand-off,
 * the read-write lock's shared reads and the RedLock's quorum hand-off.
 */
enum LockKind {
    /** {@code getLock}: exclusive. */
    PLAIN(false),
    /** {@code getFairLock}: exclusive, granted in arrival order. */
    FAIR(false),
    /**
     * {@code getReadWriteLock}: each acquisition reads (shared) or writes (exclusive), drawn afresh;
     * readers of one worker share its read hold in Redis.
     */
    READ_WRITE(true),
    /** {@code getRedLock} over three independent masters, the lock's Redis one of them. */
    REDLOCK(false);

    /** Whether its holds may be shared: a reader is let in beside other readers, never beside a writer. */
    final boolean hasReaders;

    LockKind(boolean hasReaders) {
        this.hasReaders = hasReaders;
    }

    /** @return the option's value and the lock names' middle part, such as {@code read-write} */
    String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** @return the kind named {@code key}, or null */
    static LockKind of(String key) {
        for (LockKind kind : values()) {
            if (kind.key().equals(key)) {
                return kind;
            }
        }
        return null;
    }
}
