package io.latchkey.redlock.internal;

import io.latchkey.spi.Ticker;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** A clock and a timer that move only when the test moves them. */
final class ManualClock implements Ticker, Timer {
    long now;
    private final List<Task> tasks = new ArrayList<>();

    @Override
    public long read() {
        return now;
    }

    void advanceTo(long nanos) {
        now = nanos;
        for (Task task : List.copyOf(tasks)) {
            if (!task.cancelled && task.deadline - now <= 0) {
                tasks.remove(task);
                try {
                    task.task.run(task);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    List<Task> pending() {
        return tasks.stream().filter(task -> !task.cancelled).toList();
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        Task scheduled = new Task(this, task, now + unit.toNanos(delay));
        tasks.add(scheduled);
        return scheduled;
    }

    @Override
    public Set<Timeout> stop() {
        return Set.of();
    }

    static final class Task implements Timeout {
        private final ManualClock clock;
        final TimerTask task;
        final long deadline;
        boolean cancelled;

        Task(ManualClock clock, TimerTask task, long deadline) {
            this.clock = clock;
            this.task = task;
            this.deadline = deadline;
        }

        @Override
        public Timer timer() {
            return clock;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean cancel() {
            cancelled = true;
            return true;
        }
    }
}
