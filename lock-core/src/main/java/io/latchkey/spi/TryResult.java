package io.latchkey.spi;

import io.latchkey.spi.Hold;
import org.jspecify.annotations.Nullable;

/**
 * What one try answered: acquired, with the grant; not acquired, with how long a wait is worth at
 * most; or not acquired because the hold the owner meant to re-enter is gone.
 *
 * @param acquired true if the owner now holds the lock
 * @param waitMillis when not acquired, the milliseconds after which a retry is worth making even
 *     without a wake-up (the holder's remaining lease), or a negative number if no bound is known
 * @param grant when acquired, the grant
 * @param holdGone true if the try was a re-entry of a hold that Redis no longer has; nothing changed
 * @param sharedFailure when not acquired because the try shared another's Redis call (local
 *     hand-off) and that call failed, its failure: Redis did not answer this try; else null
 * @param queuedSecret when not acquired, of a kind whose release grants the next waiter and tells
 *     it so by message (the fair lock): the one-time secret this try left in Redis with its place
 *     in line, which a grant's message must prove ({@link AcquireProtocol#grantedByWord}); else null
 */
public record TryResult(boolean acquired, long waitMillis, @Nullable Grant grant, boolean holdGone,
                        @Nullable Throwable sharedFailure, @Nullable String queuedSecret) {

    private static final TryResult UNBOUNDED = new TryResult(false, -1, null, false, null, null);
    private static final TryResult GONE = new TryResult(false, -1, null, true, null, null);

    /**
     * @param grant the grant
     * @return an acquired result
     */
    public static TryResult acquired(Grant grant) {
        return new TryResult(true, 0, grant, false, null, null);
    }

    /**
     * @param waitMillis the bound on the wait, or negative if none is known
     * @return a result that did not acquire
     */
    public static TryResult busy(long waitMillis) {
        return waitMillis < 0 ? UNBOUNDED : new TryResult(false, waitMillis, null, false, null, null);
    }

    /**
     * @param waitMillis the bound on the wait
     * @param secret see {@link #queuedSecret()}
     * @return a result that did not acquire, of a kind whose release grants the next waiter
     */
    public static TryResult queued(long waitMillis, String secret) {
        return new TryResult(false, waitMillis, null, false, null, secret);
    }

    /**
     * The answer to a try that waited for another owner's Redis call (local hand-off) which failed.
     *
     * @param failure how the Redis call that the try waited for failed
     * @return a result that did not acquire, worth trying again at once, that Redis did not answer
     */
    public static TryResult sharedFailure(Throwable failure) {
        return new TryResult(false, 0, null, false, failure, null);
    }

    /** @return the result of a re-entry that found the hold gone */
    public static TryResult goneHold() {
        return GONE;
    }

    /**
     * One granted level, as the acquire loop records it. Every grant is recorded in one place, the
     * acquire loop, also one the loop gives back at once (a cancel that came while the try was in
     * flight): the release that follows then undoes exactly this level.
     */
    public interface Grant {

        /** @return the token of the hold the grant belongs to */
        long fencingToken();

        /** @return the grant's send time plus its lease, by the client's ticker: Redis keeps it at least that long */
        long confirmedUntilNanos();

        /**
         * Hands the level to the watchdog, which renews it while its lease asks for that, and tells
         * the hold of what the kind learns about its lease: renewals that confirm it, and its loss.
         *
         * @param hold the hold the level belongs to
         */
        void start(Hold hold);

        /**
         * The acquire loop could not record the level: the owner's hold was given up for lost
         * while the try was in flight, and the owner is told so instead of being granted. A grant
         * that the kind keeps on the client (a local hand-off) gives the level back here; one in
         * Redis runs out with its lease, which nothing renews. Does nothing unless overridden.
         */
        default void refuse() {
        }

        /**
         * @return true if the lock's waiting mark named another client when Redis granted this
         *     level (a grant to a client with local hand-off only), so that the client bounds its
         *     hand-offs from the start, not from a notice that pub/sub may deliver late
         */
        default boolean anotherClientWaits() {
            return false;
        }
    }
}
