package io.latchkey.internal.cohort;

import java.util.HashMap;
import java.util.Map;

/**
 * Who of the client is at a cohort, besides its holder: the owners that wait for the lock (their
 * wake-ups are open), the owners told "busy" that have neither joined the waiters nor left since
 * (the client's waiting mark stands for them), and the tries of owners' own holds in flight. A
 * cohort with nobody here and no Redis hold may withdraw its client's mark and leave.
 *
 * <p>Not thread-safe: guarded by the owning {@link Cohort}'s monitor.
 */
final class Attendance {

    private int waiters;
    /** By owner, so that a releasing owner's own attempt, still closing, does not count. */
    private final Map<Long, Integer> waiting = new HashMap<>();
    private final Map<Long, Integer> undecided = new HashMap<>();
    private int ownTries;

    /** @return whether nobody of the client is here */
    boolean isEmpty() {
        return waiters == 0 && ownTries == 0 && undecided.isEmpty();
    }

    /** @return whether an owner waits */
    boolean anyWaiter() {
        return waiters > 0;
    }

    /** @return whether an owner other than {@code owner}, or another attempt of it, waits */
    boolean waitersBesides(long owner) {
        return waiters > waiting.getOrDefault(owner, 0);
    }

    /** An attempt of the owner joined the waiters: it has decided. */
    void joined(long owner) {
        waiters++;
        waiting.merge(owner, 1, Integer::sum);
        decided(owner);
    }

    /** An attempt of the owner stopped waiting. */
    void left(long owner) {
        waiters--;
        waiting.computeIfPresent(owner, (id, count) -> count == 1 ? null : count - 1);
    }

    /** The owner was told "busy": unless it waits already, it joins or leaves next. */
    void toldBusy(long owner) {
        if (!waiting.containsKey(owner)) {
            undecided.merge(owner, 1, Integer::sum);
        }
    }

    /** An attempt of the owner joined the waiters or left without the lock. */
    void decided(long owner) {
        undecided.computeIfPresent(owner, (id, count) -> count == 1 ? null : count - 1);
    }

    /** A try of an owner's own hold was sent. */
    void ownTrySent() {
        ownTries++;
    }

    /** A try of an owner's own hold was answered. */
    void ownTryAnswered() {
        ownTries--;
    }

    @Override
    public String toString() {
        return "waiters " + waiters + ", own tries " + ownTries + ", undecided " + undecided.keySet();
    }
}
