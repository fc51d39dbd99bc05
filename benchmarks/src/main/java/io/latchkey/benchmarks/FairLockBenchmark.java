package io.latchkey.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * Every thread wants the same fair lock all the time. The suite runs it with 8 and 32 threads.
 * Latchkey's side needs io.latchkey:lock-fair; without it the trial fails at set-up, and the
 * suite skips it with a note.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class FairLockBenchmark extends LockBenchmark {

    private BenchLock lock;

    @Override
    protected void openLocks() {
        lock = backend.fair("bench:fair:" + library);
    }

    /** lock(), count under the lock, unlock(). */
    @Benchmark
    public void lockUnlock() {
        lockCountUnlock(lock, 0);
    }
}
