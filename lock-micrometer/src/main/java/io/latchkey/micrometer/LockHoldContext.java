package io.latchkey.micrometer;

import org.jspecify.annotations.Nullable;

/**
 * A hold, from the grant that began it to its owner's last release, or to the moment its lease
 * was found lost (also when its client was closed while it was held). Re-entries belong to it.
 * Not thread-safe (see {@link LockObservationContext}).
 */
public final class LockHoldContext extends LockObservationContext {

    /** How a hold ended. */
    public enum Ending {
        /** Its owner's last release. */
        RELEASED,
        /** Its lease was found lost: renewal found it gone, a force-unlock, a failover, the client closed. */
        LOST
    }

    private final long fencingToken;
    private @Nullable Ending ending;

    LockHoldContext(String lockName, String kind, long ownerId, long fencingToken, boolean lockNameIncluded) {
        super(lockName, kind, ownerId, lockNameIncluded);
        this.fencingToken = fencingToken;
    }

    /** {@return the hold's fencing token} */
    public long getFencingToken() {
        return fencingToken;
    }

    /** {@return how the hold ended; null while it is held (at the observation's start)} */
    public @Nullable Ending getEnding() {
        return ending;
    }

    void setEnding(Ending ending) {
        this.ending = ending;
    }
}
