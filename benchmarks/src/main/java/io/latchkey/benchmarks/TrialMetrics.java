package io.latchkey.benchmarks;

import io.latchkey.measure.LatencyHistogram;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What JMH does not measure, collected over the measurement iterations of one trial (one fork of
 * one benchmark with one library): acquisitions, wall time, this JVM's CPU time, Redis's commands
 * and CPU time, the wait-time histogram, and the mutual-exclusion verdict. At the end of the
 * trial they are written as a properties file for the suite to read ({@link Keys}), or printed
 * when the benchmark runs without the suite.
 *
 * <p>Used by one thread at a time: JMH's set-up and tear-down methods.
 */
final class TrialMetrics {

    /** The keys of the properties file, shared with the suite that reads it. */
    static final class Keys {
        static final String ACQUISITIONS = "acquisitions";
        static final String ALL_ACQUISITIONS = "acquisitions.all";
        static final String SECONDS = "seconds";
        static final String CLIENT_CPU_NANOS = "client.cpu.nanos";
        static final String REDIS_COMMANDS = "redis.commands";
        static final String REDIS_CPU_NANOS = "redis.cpu.nanos";
        static final String WAIT_COUNT = "wait.count";
        static final String WAIT_P50 = "wait.p50";
        static final String WAIT_P99 = "wait.p99";
        static final String WAIT_P999 = "wait.p999";
        static final String WAIT_MAX = "wait.max";
        static final String VERIFIED = "exclusion.verified";
        static final String VIOLATION = "exclusion.violation";
        static final String COMMAND_PREFIX = "redis.calls.";
        /** Two JVMs: the longest run of consecutive grants to one JVM while the other waited. */
        static final String LONGEST_RUN = "two.jvms.longest.run";
        /** Two JVMs: the second JVM's wait p99 (the first JVM's is {@link #WAIT_P99}). */
        static final String SECOND_JVM_WAIT_P99 = "second.jvm.wait.p99";

        private Keys() {
        }
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final RedisInfo redis;
    private final Properties values = new Properties();
    private final Map<String, Long> calls = new TreeMap<>();

    private long acquisitions;
    private long allAcquisitions;
    private long nanos;
    private long cpuNanos;
    private long redisCommands;
    private long redisCpuNanos;

    private long startAcquisitions;
    private long startAllAcquisitions;
    private long startNanos;
    private long startCpuNanos;
    private RedisInfo.Snapshot startRedis;

    /** @param redis the servers whose counters to read */
    TrialMetrics(RedisInfo redis) {
        this.redis = redis;
    }

    /** @return this JVM's CPU time so far, all threads, in nanoseconds */
    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    /**
     * Starts a measured window.
     *
     * @param local acquisitions so far in this JVM
     * @param all acquisitions so far in every JVM taking part
     */
    void begin(long local, long all) {
        startRedis = redis.snapshot();
        startAcquisitions = local;
        startAllAcquisitions = all;
        startCpuNanos = processCpuNanos();
        startNanos = System.nanoTime();
    }

    /**
     * Ends the window {@link #begin} started and adds it to the totals.
     *
     * @param local acquisitions so far in this JVM
     * @param all acquisitions so far in every JVM taking part
     */
    void end(long local, long all) {
        nanos += System.nanoTime() - startNanos;
        cpuNanos += processCpuNanos() - startCpuNanos;
        RedisInfo.Snapshot now = redis.snapshot();
        acquisitions += local - startAcquisitions;
        allAcquisitions += all - startAllAcquisitions;
        redisCommands += now.commandsSince(startRedis);
        redisCpuNanos += now.cpuNanosSince(startRedis);
        now.callsSince(startRedis).forEach((command, count) -> calls.merge(command, count, Long::sum));
    }

    /**
     * @param waits the wait times of the measurement iterations
     * @param verified acquisitions whose mutual exclusion was verified, all iterations
     * @param violation the violation seen, or null
     */
    void result(LatencyHistogram waits, long verified, String violation) {
        put(Keys.ACQUISITIONS, acquisitions);
        put(Keys.ALL_ACQUISITIONS, allAcquisitions);
        values.setProperty(Keys.SECONDS, Double.toString(nanos / 1e9));
        put(Keys.CLIENT_CPU_NANOS, cpuNanos);
        put(Keys.REDIS_COMMANDS, redisCommands);
        put(Keys.REDIS_CPU_NANOS, redisCpuNanos);
        put(Keys.WAIT_COUNT, waits.count());
        put(Keys.WAIT_P50, waits.percentile(0.50));
        put(Keys.WAIT_P99, waits.percentile(0.99));
        put(Keys.WAIT_P999, waits.percentile(0.999));
        put(Keys.WAIT_MAX, waits.max());
        put(Keys.VERIFIED, verified);
        if (violation != null) {
            values.setProperty(Keys.VIOLATION, violation);
        }
        calls.forEach((command, count) -> put(Keys.COMMAND_PREFIX + command, count));
    }

    /**
     * @param key a scenario-specific key
     * @param value its value
     */
    void put(String key, long value) {
        values.setProperty(key, Long.toString(value));
    }

    /**
     * Writes the properties where the suite looks for them, or prints them.
     *
     * @param fallbackId the run's name when the suite gave none
     */
    void write(String fallbackId) {
        String id = BenchEnvironment.runId().orElse(fallbackId);
        var dir = BenchEnvironment.metricsDir();
        if (dir.isEmpty()) {
            System.out.println();
            System.out.println("Side metrics of " + id + ": " + new TreeMap<>(values));
            return;
        }
        Path file = dir.get().resolve(id + ".properties");
        try {
            Files.createDirectories(dir.get());
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                values.store(out, id);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
