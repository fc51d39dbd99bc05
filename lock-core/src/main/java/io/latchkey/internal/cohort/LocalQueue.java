package io.latchkey.internal.cohort;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The local half of a cohort's wake-ups: the waits of its client's owners for a hand-off, oldest
 * first, and a sequence that every signal moves, so that a wait parked after a signal it has not
 * seen ends at once. A hand-off sends no message: this is how its waiter hears of it. Thread-safe.
 */
final class LocalQueue {

    private final AtomicLong sequence = new AtomicLong();
    /** Guarded by this. */
    private final ArrayDeque<CompletableFuture<Void>> parked = new ArrayDeque<>();

    /** @return the number of signals so far */
    long sequence() {
        return sequence.get();
    }

    /**
     * @param seenSequence the sequence the waiter last saw
     * @return completes at the first signal after {@code seenSequence}
     */
    CompletableFuture<Void> park(long seenSequence) {
        CompletableFuture<Void> wait = new CompletableFuture<>();
        synchronized (this) {
            if (sequence.get() != seenSequence) {
                wait.complete(null);
            } else {
                parked.add(wait);
            }
        }
        return wait;
    }

    /** @param wait a wait that ended otherwise */
    @SuppressWarnings("CollectionUndefinedEquality") // a future equals only itself: that one is meant
    synchronized void unpark(CompletableFuture<Void> wait) {
        parked.remove(wait);
    }

    /** Wakes the oldest wait: a hand-off is for one owner. */
    void signalOne() {
        CompletableFuture<Void> next;
        synchronized (this) {
            sequence.incrementAndGet();
            next = parked.poll();
        }
        if (next != null) {
            next.complete(null);
        }
    }

    /** Wakes every wait: the cohort's hold is gone, and each must try again. */
    void signalAll() {
        List<CompletableFuture<Void>> all;
        synchronized (this) {
            sequence.incrementAndGet();
            all = new ArrayList<>(parked);
            parked.clear();
        }
        all.forEach(wait -> wait.complete(null));
    }
}
