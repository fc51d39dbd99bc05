package io.latchkey.spi;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What an acquire attempt waits on between tries: unlock messages, or for lock kinds without
 * them, just time. One per attempt; not shared between threads at once.
 */
public interface Wakeups extends AutoCloseable {

    /**
     * @return a counter of the signals for this attempt seen so far (a message naming another
     *     waiter is not one); read it before a try and pass it to {@link #await} so that a signal
     *     arriving during the try is not lost
     */
    long sequence();

    /**
     * @param seenSequence {@link #sequence()} as read before the last try
     * @param timeoutNanos the longest wait; positive
     * @return completes normally on a signal newer than {@code seenSequence}, at the timeout, or
     *     at {@link #interrupt()}, whichever comes first; the caller tries again in each case. The
     *     caller may also complete it itself, which ends this wait only (a cohort does, when it
     *     passes the hold on locally): it then hears no more signals, nor keeps any parked
     */
    CompletableFuture<Void> await(long seenSequence, long timeoutNanos);

    /**
     * Takes the word that a message naming this attempt carried after its name (the fair lock's
     * release sends the token of the hold it granted the waiter so named), once: a later call
     * answers null until another such message comes.
     *
     * @return the word, or null if no message with one came since the last call
     */
    default @Nullable String takeWord() {
        return null;
    }

    /** Ends the pending {@link #await} now, so the attempt can notice it was abandoned. */
    void interrupt();

    /**
     * Called by an attempt that ends without the lock, whether it gave up or its try failed: if
     * its last wake-up was an unlock message, that message was meant for someone who can use it,
     * so wake the next waiter.
     */
    void handOn();

    /** Stops listening; idempotent. */
    @Override
    void close();
}
