package io.latchkey.micrometer;

import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * What an observation of {@link LockObservations} is about: one lock, of one kind, for one owner.
 * A predicate or a convention of the application reads it; Latchkey fills it.
 *
 * <p>The lock's name is always here, so that an {@code ObservationPredicate} can pick locks by
 * name; whether a convention puts it on the observation is {@link #isLockNameIncluded()}, which
 * the default conventions follow. Names may hold order or customer ids: a convention of the
 * application's own that adds the name regardless takes that choice upon itself.
 *
 * <p>Not thread-safe, as {@link Observation.Context} is not: Latchkey sets the end's fields
 * before it stops the observation, and does not touch the context after.
 */
public abstract sealed class LockObservationContext extends Observation.Context
        permits LockAcquireContext, LockHoldContext {

    private final String lockName;
    private final String kind;
    private final long ownerId;
    private final boolean lockNameIncluded;

    LockObservationContext(String lockName, String kind, long ownerId, boolean lockNameIncluded) {
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.ownerId = ownerId;
        this.lockNameIncluded = lockNameIncluded;
    }

    /** {@return the lock's name; not null} */
    public String getLockName() {
        return lockName;
    }

    /** {@return the lock's kind: {@code "plain"}, {@code "fair"}, {@code "red"}, {@code "read"}, {@code "write"}, …} */
    public String getKind() {
        return kind;
    }

    /** {@return the owner that acquires or holds the lock} */
    public long getOwnerId() {
        return ownerId;
    }

    /**
     * Whether the application opted into lock names on traces; the default conventions add the
     * name as a high-cardinality key value only then.
     *
     * @return true if the lock's name may go on the observation
     */
    public boolean isLockNameIncluded() {
        return lockNameIncluded;
    }
}
