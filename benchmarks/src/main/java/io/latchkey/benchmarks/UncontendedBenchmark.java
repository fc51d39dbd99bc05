package io.latchkey.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * One thread, one lock nobody else wants: the cost of a lock+unlock pair, which is round trips
 * plus client CPU. {@code tryLock()} is the same pair through the no-wait entry point.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class UncontendedBenchmark extends LockBenchmark {

    private BenchLock lock;

    @Override
    protected void openLocks() {
        lock = backend.plain("bench:uncontended:" + library);
    }

    /** lock() + unlock(). */
    @Benchmark
    public void lockUnlock() {
        lockCountUnlock(lock, 0);
    }

    /** tryLock() + unlock(); a refusal fails the benchmark, since nobody else holds the lock. */
    @Benchmark
    public void tryLockUnlock() {
        long began = System.nanoTime();
        if (!lock.tryLock()) {
            throw new IllegalStateException("tryLock() refused a lock that nobody else holds");
        }
        long waited = System.nanoTime() - began;
        try {
            exclusion.enter(0);
            exclusion.exit(0);
        } finally {
            lock.unlock();
        }
        waited(waited);
    }
}
