package io.latchkey.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * The cost of one fair-lock acquire while {@code waiters} others are queued: {@code waiters + 1}
 * async owners cycle on one fair lock (acquire, count, release, queue again at the tail), so one
 * holds and {@code waiters} wait at all times. The benchmark thread counts grants: JMH's score is
 * grants (handoffs) per second, which a fair lock should keep flat as the queue grows. The wait
 * times recorded are handoff times, from a release being sent to the next owner's grant.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class FairQueueBenchmark extends LockBenchmark {

    /** How many owners wait behind the holder. */
    @Param({"1", "100", "1000"})
    public int waiters;

    private static final long OWNER_BASE = 7_000_000_000L;
    private static final long GRANT_TIMEOUT_SECONDS = 30;

    private BenchLock lock;
    private final Semaphore grants = new Semaphore(0);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running;
    private volatile long releaseSent;
    private CountDownLatch stopped;

    @Override
    protected void openLocks() {
        lock = backend.fair("bench:fair-queue:" + library + ":" + waiters);
        running = true;
        int owners = waiters + 1;
        stopped = new CountDownLatch(owners);
        releaseSent = System.nanoTime();
        for (int i = 0; i < owners; i++) {
            cycle(OWNER_BASE + i);
        }
    }

    private void cycle(long owner) {
        lock.lockAsync(owner).whenComplete((acquired, lockFailure) -> {
            if (lockFailure != null) {
                fail(lockFailure, owner);
                return;
            }
            waited(System.nanoTime() - releaseSent);
            try {
                exclusion.enter(0);
                exclusion.exit(0);
            } catch (RuntimeException violation) {
                failure.compareAndSet(null, violation);
            }
            grants.release();
            releaseSent = System.nanoTime();
            lock.unlockAsync(owner).whenComplete((released, unlockFailure) -> {
                if (unlockFailure != null) {
                    fail(unlockFailure, owner);
                } else if (running && failure.get() == null) {
                    cycle(owner);
                } else {
                    stopped.countDown();
                }
            });
        });
    }

    private void fail(Throwable cause, long owner) {
        failure.compareAndSet(null, new IllegalStateException("owner " + owner + " failed", cause));
        stopped.countDown();
        grants.release();
    }

    /**
     * Waits for the next grant to any owner.
     *
     * @throws InterruptedException if JMH interrupts the wait
     */
    @Benchmark
    public void awaitHandoff() throws InterruptedException {
        if (!grants.tryAcquire(GRANT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("STALLED: no owner was granted the fair lock for " + GRANT_TIMEOUT_SECONDS
                    + " s with " + waiters + " waiter(s) queued (a missed wake-up leaves the queue waiting for a timeout)");
        }
        Throwable failed = failure.get();
        if (failed != null) {
            throw new IllegalStateException("an owner failed: " + failed, failed);
        }
    }

    /** Lets every owner finish its current turn and leave the queue, bounded. */
    @Override
    protected void closeLocks() {
        running = false;
        try {
            if (!stopped.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(stopped.getCount() + " owners still queued 120 s after the end");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the owners left the queue", e);
        }
        Throwable failed = failure.get();
        if (failed != null) {
            throw new IllegalStateException("an owner failed: " + failed, failed);
        }
    }

    /** The owners run between JMH's iterations too: compare the counters only once they stopped. */
    @Override
    protected long verify() {
        if (running) {
            exclusion.verifyNoOverlap();
            return exclusion.acquisitions();
        }
        return exclusion.verify();
    }

    @Override
    protected void addMetrics(TrialMetrics metrics) {
        metrics.put("fair.queue.waiters", waiters);
    }
}
