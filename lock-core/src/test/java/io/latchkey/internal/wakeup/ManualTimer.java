package io.latchkey.internal.wakeup;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A Netty {@link Timer} that never fires by itself: its timeouts run when a test calls
 * {@link #fireAll()}, or, for a timer made by {@link #firingAtOnce()}, inside {@code newTimeout}
 * itself, which forces the interleaving "the timeout came before the wait was parked". Like
 * {@code HashedWheelTimer}, it refuses new timeouts once stopped. Thread-safe.
 */
public final class ManualTimer implements Timer {

    private final boolean fireAtOnce;
    private final List<ManualTimeout> scheduled = new ArrayList<>();
    private boolean stopped;

    private ManualTimer(boolean fireAtOnce) {
        this.fireAtOnce = fireAtOnce;
    }

    /** @return a timer whose timeouts fire only at {@link #fireAll()} */
    public static ManualTimer manual() {
        return new ManualTimer(false);
    }

    /** @return a timer whose timeouts fire before {@code newTimeout} returns */
    public static ManualTimer firingAtOnce() {
        return new ManualTimer(true);
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        ManualTimeout timeout = new ManualTimeout(task);
        synchronized (this) {
            if (stopped) {
                throw new IllegalStateException("cannot be started once stopped");
            }
            scheduled.add(timeout);
        }
        if (fireAtOnce) {
            timeout.fire();
        }
        return timeout;
    }

    /** Runs every timeout that is neither cancelled nor run yet. */
    public void fireAll() {
        List<ManualTimeout> due;
        synchronized (this) {
            due = new ArrayList<>(scheduled);
        }
        due.forEach(ManualTimeout::fire);
    }

    /** @return how many timeouts are neither cancelled nor run yet */
    public synchronized int pending() {
        return (int) scheduled.stream().filter(timeout -> !timeout.isExpired() && !timeout.isCancelled()).count();
    }

    @Override
    public Set<Timeout> stop() {
        synchronized (this) {
            stopped = true;
            Set<Timeout> unprocessed = new LinkedHashSet<>();
            scheduled.stream().filter(timeout -> !timeout.isExpired() && !timeout.isCancelled()).forEach(unprocessed::add);
            return unprocessed;
        }
    }

    private final class ManualTimeout implements Timeout {

        private final TimerTask task;
        private boolean expired;
        private boolean cancelled;

        ManualTimeout(TimerTask task) {
            this.task = task;
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
