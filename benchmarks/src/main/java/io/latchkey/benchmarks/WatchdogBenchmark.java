package io.latchkey.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The watchdog's cost: {@code held} locks taken with the watchdog lease and held for
 * {@link BenchEnvironment#watchdogHold()} (a minute by default) while nothing else happens. The
 * one measured iteration is the hold; the side metrics say how many commands Redis received
 * (renewals, from {@code INFO commandstats}), how much CPU this JVM and Redis spent, and whether
 * every lock was still held at the end. JMH's own score here is just the hold's length.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class WatchdogBenchmark extends LockBenchmark {

    /** How many locks are held. */
    @Param({"10000"})
    public int held;

    private static final long OWNER = 4242;
    private static final int IN_FLIGHT = 1000;
    private static final long BATCH_TIMEOUT_SECONDS = 120;

    private BenchLock[] locks;
    private long acquireNanos;
    private long releaseNanos;
    private long stillHeld = -1;

    @Override
    protected Duration watchdogLease() {
        return BenchEnvironment.watchdogLease();
    }

    @Override
    protected void openLocks() {
        locks = new BenchLock[held];
        for (int i = 0; i < held; i++) {
            locks[i] = backend.plain("bench:watchdog:" + library + ":" + i);
        }
        long began = System.nanoTime();
        inBatches(i -> locks[i].lockAsync(OWNER));
        acquireNanos = System.nanoTime() - began;
    }

    /** Holds every lock for the configured time; the watchdog renews them meanwhile. */
    @Benchmark
    public void holdAll() {
        long deadline = System.nanoTime() + BenchEnvironment.watchdogHold().toNanos();
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** Counts the locks still held after the hold, then releases them all. */
    @Override
    protected void closeLocks() {
        List<CompletableFuture<Boolean>> checks = new ArrayList<>(held);
        inBatches(i -> {
            CompletableFuture<Boolean> check = locks[i].isLockedAsync();
            checks.add(check);
            return check;
        });
        stillHeld = checks.stream().filter(CompletableFuture::join).count();
        long began = System.nanoTime();
        inBatches(i -> locks[i].unlockAsync(OWNER));
        releaseNanos = System.nanoTime() - began;
        if (stillHeld != held) {
            throw new IllegalStateException("the watchdog lost " + (held - stillHeld) + " of " + held
                    + " locks during the hold: their leases ran out");
        }
    }

    @Override
    protected void addMetrics(TrialMetrics metrics) {
        metrics.put("watchdog.locks", held);
        metrics.put("watchdog.still.held", stillHeld);
        metrics.put("watchdog.lease.millis", watchdogLease().toMillis());
        metrics.put("watchdog.hold.millis", BenchEnvironment.watchdogHold().toMillis());
        metrics.put("watchdog.acquire.nanos", acquireNanos);
        metrics.put("watchdog.release.nanos", releaseNanos);
    }

    /** Runs one async call per lock, {@value #IN_FLIGHT} in flight at most, and waits for all. */
    private void inBatches(IntFunction<CompletableFuture<?>> call) {
        for (int from = 0; from < held; from += IN_FLIGHT) {
            int to = Math.min(held, from + IN_FLIGHT);
            CompletableFuture<?>[] batch = new CompletableFuture<?>[to - from];
            for (int i = from; i < to; i++) {
                batch[i - from] = call.apply(i);
            }
            try {
                CompletableFuture.allOf(batch).get(BATCH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a lock call failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("lock calls did not finish within " + BATCH_TIMEOUT_SECONDS + " s", e);
            }
        }
    }
}
