package io.latchkey.benchmarks;

import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the suite tells the benchmark JVMs through system properties: where Redis runs, where to
 * write the side metrics, and the watchdog scenario's sizes. A benchmark run without the suite
 * (plain JMH) gets its own redis-server per JVM instead, started on first use.
 */
public final class BenchEnvironment {

    /** One Redis URI for every single-server scenario. */
    public static final String REDIS = "latchkey.bench.redis";
    /** Comma-separated URIs of the independent masters for RedLock. */
    public static final String RED_LOCK_MASTERS = "latchkey.bench.redlock";
    /** Directory for the per-run side metrics; absent: print them to standard output. */
    public static final String METRICS_DIR = "latchkey.bench.metrics";
    /** The name of the current run's metrics file, without extension. */
    public static final String RUN_ID = "latchkey.bench.run";
    /** Watchdog lease, in milliseconds, for both libraries (default 30,000, the default of both). */
    public static final String WATCHDOG_LEASE_MILLIS = "latchkey.bench.watchdog.lease";
    /** How long the watchdog scenario holds its locks, in milliseconds (default 60,000). */
    public static final String WATCHDOG_HOLD_MILLIS = "latchkey.bench.watchdog.hold";

    private static RedisServer ownServer;
    private static RedisServers ownMasters;

    private BenchEnvironment() {
    }

    /** @return the Redis URI for single-server scenarios; starts one if the suite gave none */
    public static synchronized String redisUri() {
        String given = System.getProperty(REDIS);
        if (given != null && !given.isBlank()) {
            return given;
        }
        if (ownServer == null) {
            ownServer = RedisServer.start();
        }
        return ownServer.uri();
    }

    /** @return the URIs of three independent masters; starts them if the suite gave none */
    public static synchronized List<String> redLockUris() {
        String given = System.getProperty(RED_LOCK_MASTERS);
        if (given != null && !given.isBlank()) {
            return List.of(given.split(","));
        }
        if (ownMasters == null) {
            ownMasters = RedisServers.start(3);
        }
        return List.of(ownMasters.uris());
    }

    /** @return the directory for side metrics, if the suite gave one */
    public static Optional<Path> metricsDir() {
        String dir = System.getProperty(METRICS_DIR);
        return dir == null || dir.isBlank() ? Optional.empty() : Optional.of(Paths.get(dir));
    }

    /** @return the current run's id, if the suite gave one */
    public static Optional<String> runId() {
        return Optional.ofNullable(System.getProperty(RUN_ID)).filter(id -> !id.isBlank());
    }

    /** @return the watchdog lease for both libraries */
    public static Duration watchdogLease() {
        return Duration.ofMillis(Long.getLong(WATCHDOG_LEASE_MILLIS, 30_000));
    }

    /** @return how long the watchdog scenario holds its locks */
    public static Duration watchdogHold() {
        return Duration.ofMillis(Long.getLong(WATCHDOG_HOLD_MILLIS, 60_000));
    }
}
