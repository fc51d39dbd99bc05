package io.latchkey.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * One read-write lock, two JVMs × 8 threads, nine acquisitions in ten reads: {@link ReadWriteBenchmark}'s
 * load spread over two processes, as {@link TwoJvmBenchmark} spreads the hot lock's. Readers of
 * both JVMs share the lock, writers take it alone; a reader inside with a writer of either JVM is
 * caught as it happens ({@link SharedCounter#enterShared()}), and the writers of both are counted.
 * The fairness count (the longest run of grants to one JVM while the other waited) counts writes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class TwoJvmReadWriteBenchmark extends TwoJvmBenchmark {

    private BenchLock read;
    private BenchLock write;
    private final Runnable writePass = () -> {
        shared.granted(FIRST_JVM);
        shared.enter();
        shared.exit();
    };

    @Override
    protected String secondJvmMode() {
        return SecondJvmContender.READ_WRITE;
    }

    @Override
    protected void openLocalLock(String name) {
        LockBackend.ReadWrite lock = backend.readWrite(name);
        read = lock.read();
        write = lock.write();
    }

    /** A read (nine in ten) or a write, each timed as the wait and checked across both JVMs. */
    @Benchmark
    public void readMostly() {
        if (ThreadLocalRandom.current().nextInt(SecondJvmContender.WRITE_EVERY) == 0) {
            shared.waiting(FIRST_JVM);
            lockCountUnlock(write, 0, writePass);
            return;
        }
        long began = System.nanoTime();
        read.lock();
        long waited = System.nanoTime() - began;
        try {
            exclusion.enterShared(0);
            shared.enterShared();
            shared.exitShared();
            exclusion.exitShared(0);
        } finally {
            read.unlock();
        }
        waited(waited);
    }
}
