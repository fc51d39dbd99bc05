package io.latchkey.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * Every thread wants a permit of one semaphore of {@value #PERMITS} all the time: acquire, count
 * the holders inside, release. The suite runs it with 8 and 16 threads. Instead of the lock
 * benchmarks' exclusion check, it checks that never more than {@value #PERMITS} holders are inside.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(16)
public class SemaphoreBenchmark extends LockBenchmark {

    static final int PERMITS = 4;

    private BenchSemaphore semaphore;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();
    private final LongAdder acquisitions = new LongAdder();

    @Override
    protected void openLocks() {
        semaphore = backend.semaphore("bench:semaphore:" + library, PERMITS);
    }

    /** acquire(), count the holders inside, release(). */
    @Benchmark
    public void acquireRelease() throws InterruptedException {
        long began = System.nanoTime();
        Object permit = semaphore.acquire();
        long waited = System.nanoTime() - began;
        try {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            acquisitions.increment();
            inside.decrementAndGet();
        } finally {
            semaphore.release(permit);
        }
        waited(waited);
    }

    @Override
    protected long localAcquisitions() {
        return acquisitions.sum();
    }

    @Override
    protected long verify() {
        if (most.get() > PERMITS) {
            throw new IllegalStateException("SEMAPHORE LIMIT VIOLATED: " + most.get() + " holders at once, limit " + PERMITS);
        }
        return acquisitions.sum();
    }
}
