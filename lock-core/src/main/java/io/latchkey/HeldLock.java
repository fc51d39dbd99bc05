package io.latchkey;

import java.time.Duration;
import java.util.Objects;

/**
 * One hold of a lock by an owner of this client, as the client knows it at one moment: what
 * {@link LockClient#heldLocks()} lists, for diagnostics (an Actuator endpoint, a support page).
 *
 * <p>It is what the client itself recorded, read without a round trip to Redis: the lease left is
 * the lease as last confirmed by Redis (by the grant or the latest renewal), measured from when
 * that request was sent, so Redis's own expiry is at least that far away; a hold that another
 * client's {@code forceUnlock} took away stays listed until this client learns of it (see
 * {@link Lease#leaseLost()} for how soon that is). A value: immutable, thread-safe.
 *
 * @param name the lock's name
 * @param kind the lock's kind, as events and meters name it: {@code "plain"}, {@code "fair"},
 *     {@code "red"}, {@code "read"}, {@code "write"}
 * @param ownerId the owner: the thread id of a blocking acquisition, or the {@code ownerId} given
 * @param fencingToken the hold's fencing token (see {@link LockHold#fencingToken()}); positive
 * @param heldFor from the hold's first grant to the moment of the snapshot
 * @param leaseLeft the lease as last confirmed by Redis, from the moment of the snapshot;
 *     {@link Duration#ZERO} if it ran out and the client has not yet given the hold up for lost
 * @param waiters how many acquisitions of this client wait for the same lock (its other owners,
 *     in this application); waiters in other applications are not known here
 * @since 0.3
 */
public record HeldLock(String name, String kind, long ownerId, long fencingToken, Duration heldFor, Duration leaseLeft,
                       int waiters) {

    /**
     * Checks the components.
     *
     * @param name not null
     * @param kind not null
     * @param ownerId the owner
     * @param fencingToken positive
     * @param heldFor not null, not negative
     * @param leaseLeft not null, not negative
     * @param waiters not negative
     * @throws NullPointerException if a reference is null
     * @throws IllegalArgumentException if a number or a duration is out of range
     */
    public HeldLock {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(heldFor, "heldFor");
        Objects.requireNonNull(leaseLeft, "leaseLeft");
        if (fencingToken <= 0) {
            throw new IllegalArgumentException("fencingToken must be positive: " + fencingToken);
        }
        if (heldFor.isNegative() || leaseLeft.isNegative()) {
            throw new IllegalArgumentException("heldFor and leaseLeft must not be negative: " + heldFor + ", " + leaseLeft);
        }
        if (waiters < 0) {
            throw new IllegalArgumentException("waiters must not be negative: " + waiters);
        }
    }
}
