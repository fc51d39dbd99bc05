package io.latchkey.internal.cohort;

import io.latchkey.LocalHandOff;

/**
 * What a cohort knows of the lock's other clients (rule 2 of local hand-off): whether one of them
 * waits, which bounds the cohort's hand-offs; when the cohort last read the lock's waiting mark
 * for itself, and whether that knowledge is recent enough to pass the hold on; and whether its
 * own client's mark stands, to withdraw when its last waiter leaves. Not thread-safe: guarded by
 * the owning {@link Cohort}'s monitor.
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
    /** The last read of the mark is unanswered. */
    private boolean reading;
    /** The token when the latest answered read of the mark was sent (or of the grant). */
    private long heardToken;

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
        reading = false;
        heardToken = token;
    }

    /** Another client waits for the lock. */
    void waits() {
        waiting = true;
    }

    /**
     * A hold is passed on: the cohort reads the waiting mark itself every half bound of hand-offs
     * or every {@link LocalHandOff#maxTime()}, whichever comes first, while it knows of no waiter
     * and its last read was answered.
     *
     * @return true if it is time to read the mark; it counts as read from now, and the read is
     *     known by {@code token} in {@link #readAnswered(long)}
     */
    boolean readDue(long nowNanos, long token) {
        boolean due = !waiting && !reading && (token - readToken >= Math.max(1, bounds.maxHandOffs() / 2)
                || nowNanos - readNanos >= bounds.maxTime().toNanos());
        if (due) {
            readNanos = nowNanos;
            readToken = token;
            reading = true;
        }
        return due;
    }

    /** The read of the mark sent at hand-off {@code token} was answered. */
    void readAnswered(long token) {
        if (token == readToken && reading) {
            reading = false;
            heardToken = token;
        }
    }

    /** The read of the mark sent at hand-off {@code token} failed: it tells nothing. */
    void readFailed(long token) {
        if (token == readToken) {
            reading = false;
        }
    }

    /**
     * Whether the cohort must hear from Redis before it passes the hold on after hand-off
     * {@code token}: it knows of no other client's wait, but what it knows is a whole bound of
     * hand-offs old, or the read that would tell has gone unanswered for
     * {@link LocalHandOff#maxTime()}. Redis (or the client's event loop) is then slower than the
     * hand-offs: a machine whose application threads kept handing off while Redis got no CPU for
     * 7 ms was seen to pass a hold on a thousand times before it heard of the other client's wait.
     */
    boolean mustHearFirst(long nowNanos, long token) {
        return !waiting && (token - heardToken >= bounds.maxHandOffs()
                || (reading && nowNanos - readNanos >= bounds.maxTime().toNanos()));
    }

    /**
     * @param grantsSinceRedis hand-offs since the Redis acquisition
     * @param heldNanos time since the Redis acquisition
     * @return true if another client waits and the cohort had its share of hand-offs or of time
     */
    boolean boundReached(long grantsSinceRedis, long heldNanos) {
        return waiting && (grantsSinceRedis >= bounds.maxHandOffs() || heldNanos >= bounds.maxTime().toNanos());
    }

    /** @return true if the client's mark stands in Redis as far as the cohort knows */
    boolean isMarked() {
        return marked;
    }

    /** A try of an owner's own hold took the lock, which removed this client's mark. */
    void unmarkedByGrant() {
        marked = false;
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
