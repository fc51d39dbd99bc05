package io.latchkey.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * One read-write lock that every thread wants all the time, nine times in ten to read and once to
 * write: how many acquisitions of either kind go through while readers share the lock and writers
 * take it alone. Latchkey's {@code getReadWriteLock} against Redisson's {@code RReadWriteLock}.
 * Readers and writers are checked: no reader is ever inside with a writer, and the writers' holds
 * are counted by a plain counter. The suite runs it with 8 threads.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class ReadWriteBenchmark extends LockBenchmark {

    /** One acquisition in this many writes. */
    private static final int WRITE_EVERY = 10;

    private BenchLock read;
    private BenchLock write;

    @Override
    protected void openLocks() {
        LockBackend.ReadWrite lock = backend.readWrite("bench:read-write:" + library);
        read = lock.read();
        write = lock.write();
    }

    /** A read (nine in ten) or a write, each timed as the wait and checked under the lock. */
    @Benchmark
    public void readMostly() {
        if (ThreadLocalRandom.current().nextInt(WRITE_EVERY) == 0) {
            lockCountUnlock(write, 0);
            return;
        }
        long began = System.nanoTime();
        read.lock();
        long waited = System.nanoTime() - began;
        try {
            exclusion.enterShared(0);
            exclusion.exitShared(0);
        } finally {
            read.unlock();
        }
        waited(waited);
    }
}
