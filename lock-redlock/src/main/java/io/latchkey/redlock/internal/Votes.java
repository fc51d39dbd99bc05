package io.latchkey.redlock.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The answers of N masters to one RedLock try, and what they decide: the counting rules of the
 * algorithm, apart from Redis and from the clock, so that they can be checked on their own.
 *
 * <p>The try acquires the lock when a majority (N/2+1) of the masters granted it and the hold is
 * still valid: its lease, less the time the try took, less the clock-drift allowance
 * ({@link Master#driftNanos}), is positive. In every other case each grant is given back, a
 * partial one too, since a minority of grants protects nothing and would only keep others out
 * until it ran out. A master that did not answer is counted as neither; the caller gives back
 * what it grants once it answers.
 *
 * <p>Not thread-safe: filled and read by the one callback that has every answer.
 *
 * @param <M> what names a master
 */
final class Votes<M> {

    /** What the answers decide. */
    enum Outcome {
        /** A majority granted, and the hold is still valid: the grants are kept. */
        ACQUIRED,
        /** Others hold the lock on too many masters: give the grants back, wait for their leases. */
        HELD,
        /** A majority granted, but too late for the hold to be valid: give them all back, retry after a pause. */
        TOO_LATE,
        /** Fewer than a majority answered: give the grants back; the try fails. */
        UNANSWERED
    }

    private final int masters;
    private final int majority;
    private final List<M> granted = new ArrayList<>();
    private final List<Long> holderLeases = new ArrayList<>();

    /** @param masters how many masters were asked, answered or not */
    Votes(int masters) {
        this.masters = masters;
        this.majority = majorityOf(masters);
    }

    /**
     * @param masters the number of masters
     * @return how many of them make a majority: N/2+1
     */
    static int majorityOf(int masters) {
        return masters / 2 + 1;
    }

    /** @param master a master that granted the lock */
    void granted(M master) {
        granted.add(master);
    }

    /** @param holderLeaseMillis a refusing master's remaining lease of the holder; negative if it never expires */
    void refused(long holderLeaseMillis) {
        holderLeases.add(holderLeaseMillis);
    }

    /** @return how many masters answered, granting or refusing */
    int answered() {
        return granted.size() + holderLeases.size();
    }

    /** @return the masters that granted, in the order they were counted */
    List<M> granted() {
        return Collections.unmodifiableList(granted);
    }

    /**
     * @param validityLeftNanos the lease less the time the try has taken until now, less the drift
     *     allowance: how long a hold won now could be relied on
     * @return what the answers decide
     */
    Outcome decide(long validityLeftNanos) {
        if (granted.size() >= majority) {
            return validityLeftNanos > 0 ? Outcome.ACQUIRED : Outcome.TOO_LATE;
        }
        return answered() < majority ? Outcome.UNANSWERED : Outcome.HELD;
    }

    /**
     * @param outcome what the answers decided
     * @return the grants to give back: none when acquired, else every one
     */
    List<M> toRelease(Outcome outcome) {
        return outcome == Outcome.ACQUIRED ? List.of() : granted();
    }

    /**
     * For {@link Outcome#HELD}: a majority is free once the holders' leases have run out on as
     * many masters as it lacks, so the wait is the shortest of the refusals' leases that many
     * times over (the lacking count's shortest lease).
     *
     * @return the milliseconds until enough refusing masters are free for a majority, or -1 if
     *     one of those leases never expires, so that only an unlock can free it
     * @throws IllegalStateException unless the outcome is {@link Outcome#HELD}
     */
    long majorityFreeInMillis() {
        int lacking = majority - granted.size();
        if (lacking <= 0 || lacking > holderLeases.size()) {
            throw new IllegalStateException("not held: " + granted.size() + " of " + masters + " granted, "
                    + holderLeases.size() + " refused");
        }
        List<Long> leases = new ArrayList<>(holderLeases);
        leases.replaceAll(millis -> millis < 0 ? Long.MAX_VALUE : millis);
        Collections.sort(leases);
        long millis = leases.get(lacking - 1);
        return millis == Long.MAX_VALUE ? -1 : millis;
    }

    @Override
    public String toString() {
        return "Votes{" + granted.size() + " granted, " + holderLeases.size() + " refused of " + masters + '}';
    }
}
