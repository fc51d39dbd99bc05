package io.latchkey.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Redis's own counters with {@code INFO}, on a connection of its own, from one or more
 * servers: commands processed (in all and per command, from {@code commandstats}) and the
 * server's CPU time. The benchmarks take a {@link Snapshot} before and after a measured window
 * and report the difference, so the numbers count what both libraries really sent.
 * Thread-safe for one caller at a time; JMH's set-up and tear-down methods are.
 */
final class RedisInfo implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final RedisClient client = RedisClient.create();
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

    /** @param uris the servers to watch */
    RedisInfo(List<String> uris) {
        try {
            for (String uri : uris) {
                RedisURI redisUri = RedisURI.create(uri);
                redisUri.setTimeout(TIMEOUT);
                connections.add(client.connect(redisUri));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** @return the counters of every server, added up */
    Snapshot snapshot() {
        Map<String, Long> calls = new HashMap<>();
        long commands = 0;
        double cpuSeconds = 0;
        for (StatefulRedisConnection<String, String> connection : connections) {
            String info = connection.sync().info("everything");
            for (String line : info.split("\r?\n")) {
                int colon = line.indexOf(':');
                if (colon < 0 || line.startsWith("#")) {
                    continue;
                }
                String key = line.substring(0, colon);
                String value = line.substring(colon + 1);
                if (key.equals("total_commands_processed")) {
                    commands += Long.parseLong(value.strip());
                } else if (key.equals("used_cpu_sys") || key.equals("used_cpu_user")) {
                    cpuSeconds += Double.parseDouble(value.strip());
                } else if (key.startsWith("cmdstat_")) {
                    calls.merge(key.substring("cmdstat_".length()), callsOf(value), Long::sum);
                }
            }
        }
        return new Snapshot(commands, (long) (cpuSeconds * 1e9), calls, connections.size());
    }

    private static long callsOf(String stats) {
        // calls=12,usec=34,usec_per_call=2.83,...
        for (String part : stats.split(",")) {
            if (part.startsWith("calls=")) {
                return Long.parseLong(part.substring("calls=".length()));
            }
        }
        return 0;
    }

    @Override
    public void close() {
        connections.forEach(StatefulRedisConnection::close);
        client.shutdown();
    }

    /** Redis's counters at one moment, summed over the servers watched. */
    static final class Snapshot {
        final long commands;
        final long cpuNanos;
        final Map<String, Long> calls;
        /** How many INFO commands taking this snapshot added to the counters. */
        private final int infoCalls;

        Snapshot(long commands, long cpuNanos, Map<String, Long> calls, int infoCalls) {
            this.commands = commands;
            this.cpuNanos = cpuNanos;
            this.calls = Map.copyOf(calls);
            this.infoCalls = infoCalls;
        }

        /** @return commands processed since {@code earlier}, without the INFO that took it */
        long commandsSince(Snapshot earlier) {
            return commands - earlier.commands - earlier.infoCalls;
        }

        /** @return Redis CPU time since {@code earlier}, in nanoseconds */
        long cpuNanosSince(Snapshot earlier) {
            return cpuNanos - earlier.cpuNanos;
        }

        /** @return calls per command since {@code earlier}, without INFO, only those that changed */
        Map<String, Long> callsSince(Snapshot earlier) {
            Map<String, Long> delta = new HashMap<>();
            calls.forEach((command, count) -> {
                long diff = count - earlier.calls.getOrDefault(command, 0L);
                if (diff > 0 && !command.equals("info")) {
                    delta.put(command, diff);
                }
            });
            return delta;
        }
    }
}
