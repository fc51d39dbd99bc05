package io.latchkey.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The releases of {@link Locked#lockAtLeastFor()} holds, put off until that time has passed since
 * their methods began. A release waits on a timer, not on a thread: the timer's task only starts
 * the release ({@code unlockAsync}), which the client completes on its own threads, so the timer's
 * one thread never waits for Redis.
 *
 * <p>{@link #close()}, when the application context closes (before the client, which a release
 * still needs), releases every hold still waiting at once: a node that shuts down does not keep a
 * job's lock for a period it will not run in, and its lock does not outlive it until its lease
 * runs out. Another node may then run the job before the first node's {@code lockAtLeastFor}
 * ended. Thread-safe.
 */
final class DeferredReleases implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DeferredReleases.class);

    /** What puts a task off: a timer that runs tasks after a delay. */
    interface Timer {
        /**
         * @param task what to run; it must not block
         * @param delayNanos how long from now, positive
         * @return the task's handle, cancelled by {@link DeferredReleases#close()}
         */
        Future<?> schedule(Runnable task, long delayNanos);

        /** Stops the timer; its thread ends. */
        void stop();
    }

    private final LongSupplier ticker;
    private final Supplier<Timer> timer;
    /** The timer, made at the first release put off; guarded by this. */
    private @Nullable Timer started;
    /** Guarded by this. */
    private boolean closed;
    private final Set<Pending> pending = ConcurrentHashMap.newKeySet();

    /**
     * @param ticker monotonic nanoseconds, as {@link System#nanoTime()}
     * @param timer makes the timer, at the first release put off (an application without
     *     {@code lockAtLeastFor} has no thread for it)
     */
    DeferredReleases(LongSupplier ticker, Supplier<Timer> timer) {
        this.ticker = ticker;
        this.timer = timer;
    }

    /** {@return the releases of an application: on a daemon thread of their own, made when first needed} */
    static DeferredReleases onTheirOwnThread() {
        return new DeferredReleases(System::nanoTime, DeferredReleases::ownThread);
    }

    private static Timer ownThread() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "latchkey-deferred-release");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return new Timer() {
            @Override
            public Future<?> schedule(Runnable task, long delayNanos) {
                return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void stop() {
                executor.shutdownNow();
            }
        };
    }

    /** {@return the ticker's reading now: when a method began, for {@link #releaseAt}} */
    long now() {
        return ticker.getAsLong();
    }

    /**
     * Puts a release off until {@code deadline}, unless that time has come or the releases are
     * closed: then the caller releases now.
     *
     * @param deadline a reading of {@link #now()}'s ticker: when the method began, plus
     *     {@code lockAtLeastFor}
     * @param lockName the lock's name, for the log
     * @param release starts the release; it must not block. What it fails with is logged: no caller
     *     waits for it any more
     * @return true if the release was put off; false if the caller must release now
     */
    boolean releaseAt(long deadline, String lockName, Supplier<? extends CompletionStage<?>> release) {
        long delay = deadline - ticker.getAsLong();
        if (delay <= 0) {
            return false;
        }
        Pending later = new Pending(lockName, release);
        synchronized (this) { // against close(): every release it does not find is refused here
            if (closed) {
                return false;
            }
            if (started == null) {
                started = timer.get();
            }
            pending.add(later); // before the timer may run it; it leaves once its release is done
            later.scheduled = started.schedule(later::run, delay);
        }
        return true;
    }

    /** {@return how many releases wait} */
    int pending() {
        return pending.size();
    }

    /**
     * Releases every hold still waiting, now, and waits for those releases (each bounded by the
     * client's command timeout); a release put off after this is not put off but done at once by
     * its caller. Stops the timer. Idempotent.
     */
    @Override
    public void close() {
        Timer toStop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toStop = started;
        }
        List<CompletableFuture<?>> releases = new ArrayList<>();
        for (Pending later : List.copyOf(pending)) {
            Future<?> scheduled = later.scheduled;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
            releases.add(later.run());
        }
        for (CompletableFuture<?> release : releases) {
            release.join(); // also a release the timer had started: the client must outlive it
        }
        if (toStop != null) {
            toStop.stop();
        }
    }

    /** One release put off; run by the timer or by {@link #close()}, whichever comes first, once. */
    private final class Pending {

        private final String lockName;
        private final Supplier<? extends CompletionStage<?>> release;
        private final AtomicBoolean ran = new AtomicBoolean();
        /** Completes when the release is done, whether it worked (a failure is logged). */
        private final CompletableFuture<Void> outcome = new CompletableFuture<>();
        private volatile @Nullable Future<?> scheduled;

        Pending(String lockName, Supplier<? extends CompletionStage<?>> release) {
            this.lockName = lockName;
            this.release = release;
        }

        CompletableFuture<?> run() {
            if (!ran.compareAndSet(false, true)) {
                return outcome;
            }
            CompletableFuture<?> done;
            try {
                done = release.get().toCompletableFuture();
            } catch (RuntimeException e) {
                done = CompletableFuture.failedFuture(e);
            }
            done.whenComplete((ok, failure) -> {
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                    log.warn("the lock '{}' held for lockAtLeastFor could not be released; it ends when its lease runs out: {}",
                            lockName, cause.toString());
                }
                // Only now: a close() meanwhile finds it and waits for it, before the client closes under it.
                pending.remove(this);
                outcome.complete(null);
            });
            return outcome;
        }
    }
}
