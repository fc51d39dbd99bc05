package io.latchkey.internal.rw;

import io.latchkey.LocalHandOff;

/**
 * How far a {@link ReadShare} may admit readers on its Redis read hold without hearing from Redis
 * again: the bounded bypass of the plain lock's hand-off ({@code HandOffBudget} and
 * {@code OtherClients} in {@code internal.cohort}), turned to writers.
 *
 * <p>A reader is admitted locally only while all of these hold:
 * <ol>
 * <li>the shared hold's lease as Redis last confirmed it has more than the command timeout left,
 *     and the client has no reason to doubt it (a renewal that failed, a lost connection) that a
 *     reserve sent after the doubt has not cleared;</li>
 * <li>no writer is known to wait: not from a reserve's answer, nor from a write try of this client
 *     that Redis answered "wait" (its place is in Redis from then on), unless a reserve sent after
 *     that answer found no writer waiting;</li>
 * <li>the last answer that found the hold there and no writer waiting (the grant, or a reserve)
 *     was sent fewer than {@link LocalHandOff#maxHandOffs()} admissions ago and less than
 *     {@link LocalHandOff#maxTime()} ago;</li>
 * <li>a token is left in the block the last such answer reserved.</li>
 * </ol>
 * A reserve is sent, without holding anyone up, every half of those bounds. So a writer of any
 * client that takes its place in Redis at time t is seen by the first reserve sent after t, and
 * until that answer arrives the client admits at most {@code maxHandOffs} more readers and for at
 * most {@code maxTime}: the bounds of the plain lock's hand-off while another client waits. From
 * then on no new reader of this client is admitted locally; those already in finish their reads,
 * the last one releases the Redis hold, and Redis wakes the writer.
 *
 * <p>Not thread-safe: guarded by the owning {@link ReadShare}'s monitor.
 */
final class AdmissionBudget {

    private final int maxAdmissions;
    private final long maxTimeNanos;
    private final long marginNanos;
    private final int tokenBlock;
    private long confirmedUntilNanos;
    private long token;
    private long lastToken;
    /** Readers admitted on the current hold, its first included. */
    private long admissions;
    /** When the last answer that found no writer waiting was sent, and the admissions then. */
    private long heardSentNanos;
    private long heardAdmissions;
    /** When the last reserve was sent (or the grant), and the admissions then. */
    private long sentNanos;
    private long sentAdmissions;
    private boolean reserving;
    private boolean writerWaits;
    /** When this client last learned that a writer waits. */
    private long writerSeenNanos;
    private boolean doubted;
    private long doubtedAtNanos;

    /**
     * @param bounds the client's bounds on local hand-offs
     * @param commandTimeoutNanos the client's command timeout: the margin of rule 1
     */
    AdmissionBudget(LocalHandOff bounds, long commandTimeoutNanos) {
        this.maxAdmissions = bounds.maxHandOffs();
        this.maxTimeNanos = bounds.maxTime().toNanos();
        this.marginNanos = commandTimeoutNanos;
        this.tokenBlock = tokenBlock(bounds);
    }

    /**
     * @param bounds the client's bounds on local hand-offs
     * @return how many tokens the grant and each reserve take: more than the admissions rule 3
     *     allows on one answer, so that rule 4 stops nobody while reserves are answered
     */
    static int tokenBlock(LocalHandOff bounds) {
        return Math.min(1_000_000, 2 * bounds.maxHandOffs() + 1);
    }

    /**
     * Redis granted the share a new hold, to a try sent at {@code sentAtNanos}: a grant is given
     * only while no writer waits, so it counts as heard then. The first token is the hold's own,
     * its reader's.
     */
    void held(long firstToken, long confirmedUntil, long sentAtNanos) {
        token = firstToken;
        lastToken = firstToken + tokenBlock - 1;
        confirmedUntilNanos = confirmedUntil;
        admissions = 1;
        heardSentNanos = sentAtNanos;
        heardAdmissions = 0;
        sentNanos = sentAtNanos;
        sentAdmissions = 0;
        reserving = false;
        writerWaits = false;
        doubted = false;
    }

    /** @return whether a new reader may be admitted now (rules 1 to 4) */
    boolean mayAdmit(long nowNanos) {
        return !doubted && !writerWaits && confirmedUntilNanos - marginNanos - nowNanos > 0
                && admissions - heardAdmissions < maxAdmissions && nowNanos - heardSentNanos < maxTimeNanos
                && token < lastToken;
    }

    /**
     * @return whether a reader that may not be admitted now may be once the reserve due or in
     *     flight is answered: the bound of rule 3 alone keeps it out
     */
    boolean awaitsAnswer(long nowNanos) {
        return !doubted && !writerWaits && confirmedUntilNanos - marginNanos - nowNanos > 0 && token < lastToken;
    }

    /** @return the next token, which an admitted reader takes */
    long admit() {
        admissions++;
        return ++token;
    }

    /**
     * @return true if a reserve is due (half a bound of admissions or of time since the last was
     *     sent, and none unanswered); it counts as sent from now
     */
    boolean reserveDue(long nowNanos) {
        boolean due = !reserving && (admissions - sentAdmissions >= Math.max(1, maxAdmissions / 2)
                || nowNanos - sentNanos >= maxTimeNanos / 2);
        if (due) {
            reserving = true;
            sentNanos = nowNanos;
            sentAdmissions = admissions;
        }
        return due;
    }

    /** @return when the reserve due now was sent, to be passed back with its answer */
    long reserveSentNanos() {
        return sentNanos;
    }

    /** @return the admissions when the reserve due now was sent, to be passed back with its answer */
    long reserveSentAdmissions() {
        return sentAdmissions;
    }

    /**
     * A reserve sent at {@code sentAtNanos}, after {@code admissionsThen} admissions, found the
     * hold there.
     *
     * @param writer whether it found a writer waiting
     * @param firstToken the block it reserved, or 0
     */
    void reserved(long sentAtNanos, long admissionsThen, boolean writer, long firstToken) {
        reserving = false;
        // Only a call sent after the doubt (or the writer) can clear it; a tie on the ticker cannot tell.
        if (doubted && sentAtNanos - doubtedAtNanos > 0) {
            doubted = false;
        }
        if (writer) {
            writerWaits = true;
            return;
        }
        if (writerWaits && sentAtNanos - writerSeenNanos <= 0) {
            return; // sent before this client learned of the writer: it says nothing of it
        }
        writerWaits = false;
        if (sentAtNanos - heardSentNanos >= 0) {
            heardSentNanos = sentAtNanos;
            heardAdmissions = admissionsThen;
        }
        if (firstToken > token) {
            token = firstToken - 1;
            lastToken = firstToken + tokenBlock - 1;
        }
    }

    /** The reserve in flight failed: it tells nothing, and the next is due at once. */
    void reserveFailed() {
        reserving = false;
        sentAdmissions = admissions - maxAdmissions;
        sentNanos -= maxTimeNanos;
    }

    /** A write try of this client was answered "wait": a writer's place is in Redis now. */
    void writerWaits(long nowNanos) {
        writerWaits = true;
        writerSeenNanos = nowNanos;
    }

    /** The client has reason to doubt the hold: nobody is admitted until a reserve sent from now on finds it. */
    void doubt(long nowNanos) {
        if (!doubted) {
            doubted = true;
            doubtedAtNanos = nowNanos;
        }
    }

    /**
     * A renewal confirmed the hold until {@code untilNanos}.
     *
     * @return the lease as confirmed now
     */
    long confirmed(long untilNanos) {
        if (untilNanos - confirmedUntilNanos > 0) {
            confirmedUntilNanos = untilNanos;
        }
        return confirmedUntilNanos;
    }

    /** @return when the lease as last confirmed runs out, by the client's ticker */
    long confirmedUntilNanos() {
        return confirmedUntilNanos;
    }

    /** @return how many readers were admitted on the current hold, its first included */
    long admissions() {
        return admissions;
    }

    @Override
    public String toString() {
        return "admissions " + admissions + (writerWaits ? ", a writer waits" : "") + (doubted ? ", doubted" : "")
                + (reserving ? ", reserving" : "");
    }
}
