package io.latchkey.internal.cohort;

import io.latchkey.spi.Wakeups;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One owner's wake-ups from the lock's channel, without Redis: a wait ends when the test sends an
 * unlock message, or when it is interrupted; its timeout never runs out. Counts what the cohort's
 * wake-ups pass on to it. Not thread-safe: one test thread drives it.
 */
final class ScriptedChannel implements Wakeups {

    private long sequence;
    private final List<CompletableFuture<Void>> waits = new ArrayList<>();
    int interrupts;
    int handOns;
    int closes;

    /** An unlock message: moves the sequence and ends every wait. */
    void message() {
        sequence++;
        List.copyOf(waits).forEach(wait -> wait.complete(null));
        waits.clear();
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
        CompletableFuture<Void> wait = new CompletableFuture<>();
        if (seenSequence != sequence) {
            wait.complete(null);
        } else {
            waits.add(wait);
        }
        return wait;
    }

    @Override
    public void interrupt() {
        interrupts++;
        List.copyOf(waits).forEach(wait -> wait.complete(null));
        waits.clear();
    }

    @Override
    public void handOn() {
        handOns++;
    }

    @Override
    public void close() {
        closes++;
    }
}
