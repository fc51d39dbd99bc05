package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The releases that {@code lockAtLeastFor} puts off, on a manual ticker and timer: no Redis, no waiting. */
class DeferredReleasesTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final ManualTimer timer = new ManualTimer();
    private final AtomicInteger timersMade = new AtomicInteger();
    private final DeferredReleases releases = new DeferredReleases(now::get, () -> {
        timersMade.incrementAndGet();
        return timer;
    });
    private final AtomicInteger released = new AtomicInteger();

    @Test
    void aReleaseIsPutOffUntilTheDeadlineAndDoneOnceThen() {
        long began = releases.now();
        assertThat(releases.releaseAt(began + millis(500), "job", this::release)).isTrue();
        advance(millis(499));
        assertThat(released).hasValue(0);
        assertThat(releases.pending()).isEqualTo(1);
        advance(millis(1));
        assertThat(released).hasValue(1);
        assertThat(releases.pending()).isZero();
        advance(millis(1_000));
        assertThat(released).hasValue(1);
    }

    @Test
    void aDeadlineThatHasPassedLeavesTheReleaseToTheCaller() {
        long began = releases.now();
        now.addAndGet(millis(500));
        assertThat(releases.releaseAt(began + millis(500), "job", this::release)).isFalse();
        assertThat(releases.releaseAt(began + millis(400), "job", this::release)).isFalse();
        assertThat(released).hasValue(0);
        assertThat(timersMade).as("no timer for releases never put off").hasValue(0);
    }

    @Test
    void closingReleasesWhatWaitsAtOnceAndRefusesLaterOnes() {
        long began = releases.now();
        CompletableFuture<Void> slow = new CompletableFuture<>();
        releases.releaseAt(began + millis(60_000), "a", this::release);
        releases.releaseAt(began + millis(90_000), "b", () -> {
            released.incrementAndGet();
            slow.complete(null); // completes before close() returns: close waits for it
            return slow;
        });
        releases.close();
        assertThat(released).hasValue(2);
        assertThat(slow).isDone();
        assertThat(timer.stopped).isTrue();
        assertThat(timer.cancelled).isEqualTo(2);
        // The timer's tasks, had they been about to run, do nothing more.
        timer.runAll();
        assertThat(released).hasValue(2);
        assertThat(releases.releaseAt(releases.now() + millis(1_000), "c", this::release)).isFalse();
        releases.close();
        assertThat(released).hasValue(2);
    }

    @Test
    void closeWaitsForAReleaseTheTimerAlreadyStarted() throws Exception {
        long began = releases.now();
        CompletableFuture<Void> inFlight = new CompletableFuture<>();
        releases.releaseAt(began + millis(500), "a", () -> inFlight);
        advance(millis(500)); // the timer has started the release; Redis has not answered yet

        CompletableFuture<Void> closed = CompletableFuture.runAsync(releases::close);

        // Before: close() found nothing left to wait for and returned, and the application's
        // client was closed under the unlock in flight, which then failed (review of issue 24).
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> closed.get(300, java.util.concurrent.TimeUnit.MILLISECONDS))
                .isInstanceOf(java.util.concurrent.TimeoutException.class);
        inFlight.complete(null);
        closed.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(releases.pending()).isZero();
    }

    @Test
    void aFailedReleaseIsLoggedNotThrownOnTheTimer() {
        long began = releases.now();
        releases.releaseAt(began + millis(10), "broken", () -> CompletableFuture.failedFuture(new IllegalMonitorStateException("gone")));
        releases.releaseAt(began + millis(10), "throws", () -> {
            throw new IllegalStateException("not connected");
        });
        advance(millis(10));
        assertThat(releases.pending()).isZero();
    }

    @Test
    void onlyOneTimerIsMadeForManyReleases() {
        for (int i = 0; i < 5; i++) {
            releases.releaseAt(releases.now() + millis(100), "job" + i, this::release);
        }
        assertThat(timersMade).hasValue(1);
        advance(millis(100));
        assertThat(released).hasValue(5);
    }

    private CompletableFuture<Void> release() {
        released.incrementAndGet();
        return CompletableFuture.completedFuture(null);
    }

    private static long millis(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    /** Moves the ticker and runs the timer's tasks that are due. */
    private void advance(long nanos) {
        now.addAndGet(nanos);
        timer.runDue(now.get());
    }

    /** A timer that runs its tasks when the test says. */
    private final class ManualTimer implements DeferredReleases.Timer {

        private final List<Task> tasks = new ArrayList<>();
        int cancelled;
        boolean stopped;

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            Task scheduled = new Task(task, now.get() + delayNanos);
            tasks.add(scheduled);
            return scheduled.future;
        }

        @Override
        public void stop() {
            stopped = true;
        }

        void runDue(long at) {
            for (Task task : List.copyOf(tasks)) {
                if (at - task.due >= 0) {
                    tasks.remove(task);
                    task.run();
                }
            }
        }

        void runAll() {
            for (Task task : List.copyOf(tasks)) {
                tasks.remove(task);
                task.run();
            }
        }

        private final class Task {
            final Runnable runnable;
            final long due;
            final CompletableFuture<Void> future = new CompletableFuture<>() {
                @Override
                public boolean cancel(boolean mayInterruptIfRunning) {
                    cancelled++;
                    return super.cancel(mayInterruptIfRunning);
                }
            };

            Task(Runnable runnable, long due) {
                this.runnable = runnable;
                this.due = due;
            }

            /** A cancelled task may still run, as one already taken by a real timer's thread would. */
            void run() {
                runnable.run();
            }
        }
    }
}
