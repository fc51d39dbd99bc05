package io.latchkey.benchmarks;

import io.latchkey.measure.LatencyHistogram;
import java.time.Duration;
import java.util.List;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The shared frame of every lock benchmark: the {@code library} parameter, the backend it
 * opens, the mutual-exclusion check, the wait-time histogram, and the side metrics of the
 * measurement iterations. Subclasses open their locks in {@link #openLocks()} and call
 * {@link #waited(long)} with each acquisition's wait.
 *
 * <p>One instance per benchmark (JMH {@link Scope#Benchmark}), shared by all its threads.
 */
@State(Scope.Benchmark)
public abstract class LockBenchmark {

    private static final Runnable NOTHING_MORE = () -> { };

    /** {@code latchkey}, {@code redisson}, {@code spring}, or a reference, in-JVM or raw Lettuce ({@link Library#id}): the library measured. */
    @Param({"latchkey", "redisson"})
    public String library;

    /** The library, connected. */
    protected LockBackend backend;
    /** Fails the benchmark if two holders ever overlap. */
    protected ExclusionCheck exclusion;
    /** Each acquisition's wait, measurement iterations only. */
    protected final LatencyHistogram waits = new LatencyHistogram();

    /** How many threads JMH runs the benchmark with. */
    protected int threads;

    private RedisInfo redis;
    private TrialMetrics metrics;
    private String trialName;
    private volatile boolean measuring;

    /** @param params JMH's description of the trial */
    @Setup(Level.Trial)
    public void openTrial(BenchmarkParams params) {
        trialName = params.id();
        threads = params.getThreads();
        exclusion = new ExclusionCheck(locks());
        try {
            backend = Library.of(library).open(watchdogLease());
            redis = new RedisInfo(redisUris());
            metrics = new TrialMetrics(redis);
            openLocks();
        } catch (RuntimeException | Error e) {
            closeQuietly();
            throw e;
        }
    }

    /** @param params JMH's description of the iteration */
    @Setup(Level.Iteration)
    public void beginIteration(IterationParams params) {
        if (params.getType() == IterationType.MEASUREMENT) {
            beginMeasurement();
            metrics.begin(localAcquisitions(), allAcquisitions());
            measuring = true;
        }
    }

    /** Verifies mutual exclusion after every iteration, and closes a measured window. */
    @TearDown(Level.Iteration)
    public void endIteration() {
        boolean measured = measuring;
        measuring = false;
        verify();
        if (measured) {
            metrics.end(localAcquisitions(), allAcquisitions());
            endMeasurement();
        }
    }

    /**
     * Releases what the benchmark holds, verifies mutual exclusion a last time, writes the side
     * metrics (with the violation, if any), closes the backend.
     */
    @TearDown(Level.Trial)
    public void closeTrial() {
        RuntimeException failure = null;
        long verified = 0;
        try {
            closeLocks();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            verified = verify();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        try {
            metrics.result(waits, verified, failure == null ? null : failure.getMessage());
            addMetrics(metrics);
            metrics.write(trialName);
        } finally {
            closeQuietly();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** @return whether the current iteration is a measured one */
    protected final boolean measuring() {
        return measuring;
    }

    /**
     * The body of every contended scenario: lock() timed as the wait, one pass through the
     * exclusion check's slot under the lock, unlock().
     *
     * @param lock the lock to take
     * @param slot the exclusion-check slot of that lock
     */
    protected final void lockCountUnlock(BenchLock lock, int slot) {
        lockCountUnlock(lock, slot, NOTHING_MORE);
    }

    /**
     * @param lock the lock to take
     * @param slot the exclusion-check slot of that lock
     * @param alsoInside more work inside the critical section, such as a second exclusion check
     */
    protected final void lockCountUnlock(BenchLock lock, int slot, Runnable alsoInside) {
        long began = System.nanoTime();
        lock.lock();
        long waited = System.nanoTime() - began;
        try {
            exclusion.enter(slot);
            alsoInside.run();
            exclusion.exit(slot);
        } finally {
            lock.unlock();
        }
        waited(waited);
    }

    /** @param nanos how long one acquisition waited; recorded in measurement iterations only */
    protected final void waited(long nanos) {
        if (measuring) {
            waits.record(nanos);
        }
    }

    /** @return how many locks (exclusion slots) the benchmark uses */
    protected int locks() {
        return 1;
    }

    /** @return the watchdog lease of the backend */
    protected Duration watchdogLease() {
        return Duration.ofSeconds(30);
    }

    /** @return the Redis servers whose counters count */
    protected List<String> redisUris() {
        return List.of(BenchEnvironment.redisUri());
    }

    /** Opens the benchmark's locks; {@link #backend} is connected. */
    protected abstract void openLocks();

    /** Releases what the benchmark still holds at the end; nothing by default. */
    protected void closeLocks() {
    }

    /** @return acquisitions in this JVM: those the exclusion check counted, unless a scenario counts its own */
    protected long localAcquisitions() {
        return exclusion.acquisitions();
    }

    /** @return acquisitions in every JVM taking part; this JVM's by default */
    protected long allAcquisitions() {
        return localAcquisitions();
    }

    /** Called before a measured iteration begins. */
    protected void beginMeasurement() {
    }

    /** Called after a measured iteration ended. */
    protected void endMeasurement() {
    }

    /**
     * @return acquisitions verified
     * @throws IllegalStateException if mutual exclusion was violated
     */
    protected long verify() {
        return exclusion.verify();
    }

    /** @param metrics where to add scenario-specific numbers */
    protected void addMetrics(TrialMetrics metrics) {
    }

    private void closeQuietly() {
        try {
            if (backend != null) {
                backend.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }
}
