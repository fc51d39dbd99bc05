package io.latchkey.spring;

import io.latchkey.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The client's connection to Redis, as one round trip: up with its latency, down with the
 * failure (a {@link io.latchkey.LockException} that says whether Redis timed out, refused or
 * cannot be reached). The round trip asks whether a lock of its own exists, so it needs no rights
 * beyond the library's own.
 */
final class LatchkeyHealthIndicator extends AbstractHealthIndicator {

    /** The probe only reads it, so an application that locks the same name changes nothing. (Names starting "latchkey:" are refused.) */
    static final String PROBE = "latchkey-health-probe";

    private final LockClient client;
    private final String redis;

    LatchkeyHealthIndicator(LockClient client, String redis) {
        super("Latchkey health check failed");
        this.client = client;
        this.redis = redis;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        // Before the round trip: a failure keeps the builder's details, so DOWN says where Redis was looked for.
        builder.withDetail("redis", redis);
        long start = System.nanoTime();
        client.getLock(PROBE).isLocked();
        builder.up()
                .withDetail("latency", Duration.ofNanos(System.nanoTime() - start).truncatedTo(java.time.temporal.ChronoUnit.MICROS).toString())
                .withDetail("latencyMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
}
