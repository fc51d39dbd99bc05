package io.latchkey.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * 32 threads over 10,000 locks, each operation on a random one: many cold locks, rare contention,
 * so the cost is mostly the pair's round trips and the client's CPU under concurrency.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(32)
public class ManyKeysBenchmark extends LockBenchmark {

    static final int KEYS = 10_000;

    private BenchLock[] locks;

    @Override
    protected int locks() {
        return KEYS;
    }

    @Override
    protected void openLocks() {
        locks = new BenchLock[KEYS];
        for (int i = 0; i < KEYS; i++) {
            locks[i] = backend.plain("bench:keys:" + library + ":" + i);
        }
    }

    /** lock(), count under the lock, unlock() of a random one of the locks. */
    @Benchmark
    public void lockUnlock() {
        int key = ThreadLocalRandom.current().nextInt(KEYS);
        BenchLock lock = locks[key];
        lockCountUnlock(lock, key);
    }
}
