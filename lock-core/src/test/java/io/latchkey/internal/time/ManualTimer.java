package io.latchkey.internal.time;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A Netty {@link Timer} on a {@link ManualTicker}: nothing fires until the test moves time with
 * {@link #advance}, which fires every timeout that falls due, in the order of their deadlines,
 * with the ticker set to each deadline as it fires (a task that schedules another reads the time
 * a real timer would have shown). A timer made by {@link #firingAtOnce()} instead runs each
 * timeout inside {@code newTimeout} itself, whatever its delay, which forces the interleaving
 * "the timeout came before the wait was parked". Like {@code HashedWheelTimer}, it refuses new
 * timeouts once stopped. Thread-safe; tasks run on the thread that moves time.
 */
public final class ManualTimer implements Timer {

    private final ManualTicker ticker;
    private final boolean fireAtOnce;
    /** Guarded by this. */
    private final List<ManualTimeout> scheduled = new ArrayList<>();
    /** Guarded by this: breaks ties between equal deadlines in the order of scheduling. */
    private long sequence;
    /** Guarded by this. */
    private boolean stopped;

    private ManualTimer(ManualTicker ticker, boolean fireAtOnce) {
        this.ticker = ticker;
        this.fireAtOnce = fireAtOnce;
    }

    /** @return a timer whose timeouts fire only as {@link #advance} reaches them, on a ticker at zero */
    public static ManualTimer manual() {
        return manual(new ManualTicker());
    }

    /**
     * @param ticker the time the timeouts are measured on
     * @return a timer whose timeouts fire only as {@link #advance} reaches them
     */
    public static ManualTimer manual(ManualTicker ticker) {
        return new ManualTimer(ticker, false);
    }

    /** @return a timer whose timeouts fire before {@code newTimeout} returns */
    public static ManualTimer firingAtOnce() {
        return new ManualTimer(new ManualTicker(), true);
    }

    /** @return the time of this timer, to give to the code under test as its {@link Ticker} */
    public ManualTicker ticker() {
        return ticker;
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        ManualTimeout timeout;
        synchronized (this) {
            if (stopped) {
                throw new IllegalStateException("cannot be started once stopped");
            }
            // Saturated like toNanos: only the difference to the ticker's reading is ever compared.
            long delayNanos = Math.max(0, unit.toNanos(delay));
            timeout = new ManualTimeout(task, ticker.read() + delayNanos, sequence++);
            scheduled.add(timeout);
        }
        if (fireAtOnce) {
            timeout.fire();
        }
        return timeout;
    }

    /**
     * Moves time forward, firing every timeout that falls due on the way, also one that a fired
     * task scheduled.
     *
     * @param amount how far, not negative
     */
    public void advance(Duration amount) {
        advance(amount.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * @param amount how far, not negative
     * @param unit the unit of {@code amount}
     */
    public void advance(long amount, TimeUnit unit) {
        if (amount < 0) {
            throw new IllegalArgumentException("time only moves forward: " + amount + " " + unit);
        }
        long target = ticker.read() + unit.toNanos(amount);
        while (true) {
            ManualTimeout next;
            synchronized (this) {
                scheduled.removeIf(timeout -> timeout.expired || timeout.cancelled);
                next = scheduled.stream()
                        .filter(timeout -> timeout.deadlineNanos - target <= 0)
                        .min(Comparator.<ManualTimeout>comparingLong(timeout -> timeout.deadlineNanos - target)
                                .thenComparingLong(timeout -> timeout.sequence))
                        .orElse(null);
                if (next != null && next.deadlineNanos - ticker.read() > 0) {
                    ticker.set(next.deadlineNanos);
                }
            }
            if (next == null) {
                ticker.set(target);
                return;
            }
            next.fire();
        }
    }

    /** @return how many timeouts are neither cancelled nor run yet */
    public synchronized int pending() {
        return (int) scheduled.stream().filter(timeout -> !timeout.expired && !timeout.cancelled).count();
    }

    @Override
    public Set<Timeout> stop() {
        synchronized (this) {
            stopped = true;
            Set<Timeout> unprocessed = new LinkedHashSet<>();
            scheduled.stream().filter(timeout -> !timeout.expired && !timeout.cancelled).forEach(unprocessed::add);
            return unprocessed;
        }
    }

    private final class ManualTimeout implements Timeout {

        private final TimerTask task;
        final long deadlineNanos;
        final long sequence;
        /** Guarded by the timer. */
        boolean expired;
        /** Guarded by the timer. */
        boolean cancelled;

        ManualTimeout(TimerTask task, long deadlineNanos, long sequence) {
            this.task = task;
            this.deadlineNanos = deadlineNanos;
            this.sequence = sequence;
        }

        void fire() {
            synchronized (ManualTimer.this) {
                if (expired || cancelled) {
                    return;
                }
                expired = true;
            }
            try {
                task.run(this);
            } catch (Exception e) {
                throw new IllegalStateException("a timer task failed", e);
            }
        }

        @Override
        public Timer timer() {
            return ManualTimer.this;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            synchronized (ManualTimer.this) {
                return expired;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (ManualTimer.this) {
                return cancelled;
            }
        }

        @Override
        public boolean cancel() {
            synchronized (ManualTimer.this) {
                if (expired || cancelled) {
                    return false;
                }
                cancelled = true;
                return true;
            }
        }
    }
}
