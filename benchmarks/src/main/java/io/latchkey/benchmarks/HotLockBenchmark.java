package io.latchkey.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * Every thread wants the same lock all the time: handoff throughput and wait times. The suite
 * runs it with 2, 8 and 32 threads (JMH's {@code -t}); 8 without it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class HotLockBenchmark extends LockBenchmark {

    private BenchLock lock;

    @Override
    protected void openLocks() {
        lock = backend.plain("bench:hot:" + library);
    }

    /** lock(), count under the lock, unlock(). */
    @Benchmark
    public void lockUnlock() {
        lockCountUnlock(lock, 0);
    }
}
