package io.latchkey.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * Lock+unlock of a RedLock over three independent masters: Latchkey's {@code getRedLock},
 * Redisson's {@code RedissonRedLock} over one client per master. The suite runs it with one
 * thread ({@code redlock}) and with 8 threads on one hot RedLock ({@code redlock-8}, JMH's
 * {@code -t}), where Latchkey's local hand-off passes the quorum hold between the threads.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class RedLockBenchmark extends LockBenchmark {

    private BenchLock lock;

    @Override
    protected List<String> redisUris() {
        return BenchEnvironment.redLockUris();
    }

    @Override
    protected void openLocks() {
        lock = backend.red("bench:red:" + library);
    }

    /** lock() + unlock() on a majority of the masters. */
    @Benchmark
    public void lockUnlock() {
        lockCountUnlock(lock, 0);
    }
}
