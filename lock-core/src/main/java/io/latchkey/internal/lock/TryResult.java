package io.latchkey.internal.lock;

/**
 * What one try answered: acquired, with what keeps the grant's lease alive; or not, with how
 * long a wait is worth at most.
 *
 * @param acquired true if the owner now holds the lock
 * @param waitMillis when not acquired, the milliseconds after which a retry is worth making even
 *     without a wake-up (the holder's remaining lease), or a negative number if no bound is known
 * @param renewal when acquired, what the loop starts so the grant's lease is renewed as its
 *     kind of lease asks
 */
public record TryResult(boolean acquired, long waitMillis, Renewal renewal) {

    private static final TryResult UNBOUNDED = new TryResult(false, -1, Renewal.NONE);

    /**
     * @param renewal what renews the grant
     * @return an acquired result
     */
    public static TryResult acquired(Renewal renewal) {
        return new TryResult(true, 0, renewal);
    }

    /**
     * @param waitMillis the bound on the wait, or negative if none is known
     * @return a result that did not acquire
     */
    public static TryResult busy(long waitMillis) {
        return waitMillis < 0 ? UNBOUNDED : new TryResult(false, waitMillis, Renewal.NONE);
    }

    /**
     * The watchdog's part in one grant. Every grant is handed to the watchdog in one place, the
     * acquire loop, also one the loop gives back at once (a cancel that came while the try was in
     * flight): the release that follows then undoes exactly this level.
     */
    @FunctionalInterface
    public interface Renewal {

        /** For grants that nothing renews. */
        Renewal NONE = () -> {
        };

        /** Records the grant with the watchdog, which renews it while its lease asks for that. */
        void start();
    }
}
