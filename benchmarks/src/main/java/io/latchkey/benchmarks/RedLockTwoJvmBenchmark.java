package io.latchkey.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * One hot RedLock over three masters, two JVMs × 8 threads: {@link TwoJvmBenchmark}'s load and
 * checks (exclusion across both JVMs, each JVM's wait p99, the longest run of grants to one JVM
 * while the other waited) on {@link RedLockBenchmark}'s lock. Within a JVM, Latchkey's local
 * hand-off passes the quorum hold between the threads; between the JVMs, each turn is a quorum
 * released and taken again on the masters, so the run shows what the hand-off's bound costs.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class RedLockTwoJvmBenchmark extends TwoJvmBenchmark {

    @Override
    protected String secondJvmMode() {
        return SecondJvmContender.RED_LOCK;
    }

    @Override
    protected BenchLock exclusiveLock(String name) {
        return backend.red(name);
    }

    /** The masters, given to the second JVM as the suite gives them to this one (or as this JVM started them). */
    @Override
    protected List<String> secondJvmProperties() {
        return List.of("-D" + BenchEnvironment.RED_LOCK_MASTERS + "=" + String.join(",", BenchEnvironment.redLockUris()));
    }

    /** The masters, whose commands and CPU both JVMs' acquisitions share. */
    @Override
    protected List<String> redisUris() {
        return BenchEnvironment.redLockUris();
    }
}
