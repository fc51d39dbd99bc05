package io.latchkey.redlock.internal;

import io.latchkey.LockException;
import io.latchkey.internal.wakeup.Wakeups;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

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
    private final long jitterNanos;
    /** The wait in progress, or the last one. Guarded by this. */
    private Round round;
    /** An interrupt came while no wait was parked: the next wait ends at once. Guarded by this. */
    private boolean interruptPending;
    private volatile boolean closed;

    /**
     * @param masters the joined unlock channels; may be empty
     * @param timer the timer of the RedLock's first master
     * @param jitterNanos the bound on the random delay after a message; positive
     */
    RedLockWakeups(List<Wakeups> masters, Timer timer, long jitterNanos) {
        this.masters = List.copyOf(masters);
        this.timer = timer;
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
        Round current = new Round(seenSequence, System.nanoTime() + timeoutNanos);
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
        long[] seen = new long[masters.size()];
        long sum = 0;
        for (int i = 0; i < seen.length; i++) {
            seen[i] = masters.get(i).sequence();
            sum += seen[i];
        }
        if (sum != seenSequence) {
            current.signalled();
            return current.done;
        }
        current.endIn(timeoutNanos);
        for (int i = 0; i < seen.length && !current.ending(); i++) {
            Wakeups master = masters.get(i);
            master.await(seen[i], timeoutNanos).whenComplete((ok, failure) -> current.masterWoke(failure));
            if (current.ending()) {
                master.interrupt(); // the round ended while this wait was being parked
            }
        }
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
        private boolean ending;
        private boolean signalled;
        private Timeout timeout;

        Round(long seenSequence, long deadlineNanos) {
            this.seenSequence = seenSequence;
            this.deadlineNanos = deadlineNanos;
        }

        synchronized boolean ending() {
            return ending;
        }

        void masterWoke(Throwable failure) {
            if (failure != null) {
                end(failure); // the master's client was closed
            } else if (sequence() != seenSequence) {
                signalled();
            } else {
                end(null); // that master's own timeout: the round's has come too
            }
        }

        void signalled() {
            synchronized (this) {
                if (ending || signalled) {
                    return;
                }
                signalled = true;
            }
            long delay = Math.min(ThreadLocalRandom.current().nextLong(jitterNanos), deadlineNanos - System.nanoTime());
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
                end(new LockException("the LockClient is closed"));
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

        void end(Throwable failure) {
            Timeout pending;
            synchronized (this) {
                if (ending) {
                    return;
                }
                ending = true;
                pending = timeout;
            }
            if (pending != null) {
                pending.cancel();
            }
            masters.forEach(Wakeups::interrupt);
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        }
    }
}
