package io.latchkey.redlock.internal;

import io.latchkey.spi.KindFailures;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The wake-ups of one RedLock attempt: the unlock messages of every master that could be joined,
 * and the retry bound, on the first master's timer.
 *
 * <p>A message from any master ends the wait after a random delay of up to a quarter of an
 * attempt timeout: every contender hears the same unlock (on each master), and if all tried at
 * once they could split the masters between them, so that none had a majority. The sequence is the
 * sum of the masters' sequences; since each only grows, an unchanged sum means that no master
 * signalled. One per attempt; not used by two threads at once.
 */
final class RedLockWakeups implements Wakeups {

    private final List<Wakeups> masters;
    private final Timer timer;
    private final Ticker ticker;
    private final long jitterNanos;
    /** The wait in progress, or the last one. Guarded by this. */
    private @Nullable Round round;
    /** An interrupt came while no wait was parked: the next wait ends at once. Guarded by this. */
    private boolean interruptPending;
    private volatile boolean closed;

    /**
     * @param masters the joined unlock channels; may be empty
     * @param timer the timer of the RedLock's first master
     * @param ticker the clock of that master's client
     * @param jitterNanos the bound on the random delay after a message; positive
     */
    RedLockWakeups(List<Wakeups> masters, Timer timer, Ticker ticker, long jitterNanos) {
        this.masters = List.copyOf(masters);
        this.timer = timer;
        this.ticker = ticker;
        this.jitterNanos = jitterNanos;
    }

    @Override
    public long sequence() {
        long sum = 0;
        for (Wakeups master : masters) {
            sum += master.sequence();
        }
        return sum;
    }

    @Override
    public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
        long deadlineNanos = ticker.read() + timeoutNanos;
        long[] seen = new long[masters.size()];
        long sum = 0;
        for (int i = 0; i < seen.length; i++) {
            seen[i] = masters.get(i).sequence();
            sum += seen[i];
        }
        Round current = new Round(seenSequence, deadlineNanos, seen);
        boolean interrupted;
        synchronized (this) {
            round = current;
            interrupted = interruptPending || closed;
            interruptPending = false;
        }
        if (interrupted) {
            current.end(null);
            return current.done;
        }
        if (sum != seenSequence) {
            current.signalled();
            return current.done;
        }
        current.endIn(timeoutNanos);
        current.listen(timeoutNanos);
        return current.done;
    }

    /**
     * Ends the parked wait, or, if none is parked (none yet, or the last one has ended), the next
     * one as soon as it starts. Checked and recorded under this object's monitor, which
     * {@link #await} also takes to publish its wait, so that one of the two always sees the other.
     */
    @Override
    public void interrupt() {
        Round current;
        synchronized (this) {
            current = round;
            if (current == null || current.ending()) {
                interruptPending = true;
                return;
            }
        }
        current.end(null);
    }

    /** Hands on the unlock messages that woke this attempt, on each master that sent one. */
    @Override
    public void handOn() {
        masters.forEach(Wakeups::handOn);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            interrupt();
            masters.forEach(Wakeups::close);
        }
    }

    /** One wait: ends once, by its timeout, by a message plus the random delay, or by interrupt. */
    private final class Round {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private final long seenSequence;
        private final long deadlineNanos;
        /** Each master's sequence when the round began. */
        private final long[] seen;
        /** Each master's wait in this round, once parked. Guarded by this. */
        private final List<@Nullable CompletableFuture<Void>> parked = new ArrayList<>();
        private boolean ending;
        private boolean signalled;
        private @Nullable Timeout timeout;

        Round(long seenSequence, long deadlineNanos, long[] seen) {
            this.seenSequence = seenSequence;
            this.deadlineNanos = deadlineNanos;
            this.seen = seen;
            for (int i = 0; i < masters.size(); i++) {
                parked.add(null);
            }
            // The caller may end the wait itself by completing it, as a cohort does when it passes
            // the hold on locally: the masters' waits must leave then too. Left parked, each would
            // be its channel's oldest waiter and take the next unlock message for a round that
            // waits no more, while the attempt's next round, parked behind it, never hears it.
            done.whenComplete((ok, failure) -> end(null));
        }

        synchronized boolean ending() {
            return ending;
        }

        /** Parks a wait on every master, unless the round ends meanwhile. */
        void listen(long timeoutNanos) {
            for (int i = 0; i < seen.length && !ending(); i++) {
                park(i, timeoutNanos);
            }
        }

        /**
         * Parks a wait on master {@code index}. A round that ended while it was being parked
         * ends it here, as {@link #end} did not see it yet.
         */
        private void park(int index, long timeoutNanos) {
            Wakeups master = masters.get(index);
            CompletableFuture<Void> wait = master.await(seen[index], timeoutNanos);
            boolean endedMeanwhile;
            synchronized (this) {
                parked.set(index, wait);
                endedMeanwhile = ending;
            }
            if (endedMeanwhile) {
                wait.complete(null);
            }
            wait.whenComplete((ok, failure) -> masterWoke(index, failure));
        }

        private void masterWoke(int index, @Nullable Throwable failure) {
            if (failure != null) {
                end(failure); // the master's client was closed
            } else if (sequence() != seenSequence) {
                signalled();
            } else if (!ending()) {
                long leftNanos = deadlineNanos - ticker.read();
                if (leftNanos > 0) {
                    // No message and not this round's end: an interrupt the master kept from an
                    // earlier wait. Its messages still count for the rest of this round.
                    park(index, leftNanos);
                } else {
                    end(null); // that master's own timeout: the round's has come too
                }
            }
        }

        void signalled() {
            synchronized (this) {
                if (ending || signalled) {
                    return;
                }
                signalled = true;
            }
            long delay = Math.min(ThreadLocalRandom.current().nextLong(jitterNanos), deadlineNanos - ticker.read());
            if (delay <= 0) {
                end(null);
            } else {
                endIn(delay);
            }
        }

        /** Ends the round after {@code delayNanos}, replacing an earlier timeout. */
        void endIn(long delayNanos) {
            Timeout next;
            try {
                next = timer.newTimeout(t -> end(null), delayNanos, TimeUnit.NANOSECONDS);
            } catch (IllegalStateException timerStopped) {
                end(KindFailures.clientClosed());
                return;
            }
            Timeout previous;
            synchronized (this) {
                previous = timeout;
                timeout = next;
                if (ending) {
                    next.cancel();
                }
            }
            if (previous != null) {
                previous.cancel();
            }
        }

        /**
         * Ends the round and its own master waits, by completing them, which ends each of those
         * waits only. Not by the masters' interrupts: an interrupt ends a master's latest wait,
         * which may be the next round's already (the caller's completion of this round runs
         * first, and may have parked it), and one that finds no wait parked is kept for the
         * master's next wait, which would then end the next round at once.
         */
        void end(@Nullable Throwable failure) {
            Timeout pending;
            List<CompletableFuture<Void>> stillParked = new ArrayList<>(masters.size());
            synchronized (this) {
                if (ending) {
                    return;
                }
                ending = true;
                pending = timeout;
                for (CompletableFuture<Void> wait : parked) {
                    if (wait != null && !wait.isDone()) {
                        stillParked.add(wait);
                    }
                }
            }
            if (pending != null) {
                pending.cancel();
            }
            stillParked.forEach(wait -> wait.complete(null));
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        }
    }
}
