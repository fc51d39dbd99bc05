package io.latchkey.internal.cohort;

import io.latchkey.LockConfig.LocalHandOff;

/**
 * What a cohort knows of the lock's other clients (rule 2 of local hand-off): whether one of them
 * waits, which bounds the cohort's hand-offs; when the cohort last read the lock's waiting mark
 * for itself; and whether its own client's mark stands, to withdraw when its last waiter leaves.
 * Not thread-safe: guarded by the owning {@link Cohort}'s monitor.
 */
final class OtherClients {

    private final LocalHandOff bounds;
    /** The cohort marked its client as waiting, and no grant since removed the mark. */
    private boolean marked;
    /** Another client told it waits, or its mark was read, since the cohort's try was sent. */
    private boolean waiting;
    /** When the waiting mark was last read (or the grant told of it), and the token then. */
    private long readNanos;
    private long readToken;

    OtherClients(LocalHandOff bounds) {
        this.bounds = bounds;
    }

    /** The cohort sends a try to Redis: what was known of the last hold no longer counts. */
    void trySent() {
        waiting = false;
    }

    /**
     * This client's mark stands in Redis: Redis answered the cohort's try "held" (or "reserved for
     * another client"), or the cohort marked its client as it gave the lock up with owners waiting.
     */
    void marked() {
        marked = true;
    }

    /** Redis granted the cohort's try, which removed this client's mark and told of any other's. */
    void granted(long nowNanos, long token) {
        marked = false;
        readNanos = nowNanos;
        readToken = token;
    }

    /** Another client waits for the lock. */
    void waits() {
        waiting = true;
    }

    /**
     * A hold is passed on: the cohort reads the waiting mark itself every half bound of hand-offs
     * or every {@link LocalHandOff#maxTime()}, whichever comes first, while it knows of no waiter.
     *
     * @return true if it is time to read the mark; it counts as read from now
     */
    boolean readDue(long nowNanos, long token) {
        boolean due = !waiting && (token - readToken >= Math.max(1, bounds.maxHandOffs() / 2)
                || nowNanos - readNanos >= bounds.maxTime().toNanos());
        if (due) {
            readNanos = nowNanos;
            readToken = token;
        }
        return due;
    }

    /**
     * @param grantsSinceRedis hand-offs since the Redis acquisition
     * @param heldNanos time since the Redis acquisition
     * @return true if another client waits and the cohort had its share of hand-offs or of time
     */
    boolean boundReached(long grantsSinceRedis, long heldNanos) {
        return waiting && (grantsSinceRedis >= bounds.maxHandOffs() || heldNanos >= bounds.maxTime().toNanos());
    }

    /**
     * The client's last waiter left while the cohort holds nothing.
     *
     * @return true if its mark stands and must be withdrawn in Redis (it counts as withdrawn)
     */
    boolean withdraw() {
        boolean withdraw = marked;
        marked = false;
        return withdraw;
    }
}
