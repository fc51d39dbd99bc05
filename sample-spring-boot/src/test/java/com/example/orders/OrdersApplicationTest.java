package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.WithRedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;

/** The sample as its users would test it: the whole application against a real redis-server. */
@SpringBootTest(properties = "orders.report.cron=* * * * * *")
@WithRedisServer
class OrdersApplicationTest {

    @Autowired
    ShippingService shipping;
    @Autowired
    DailyReport report;
    @Autowired
    LockClient client;
    @Autowired
    MeterRegistry meters;
    @Autowired
    HealthEndpoint health;

    @Test
    void ordersShipUnderTheirLockWithIncreasingTokens(RedisServer redis) {
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> shipping.ship("42")));
        }
        calls.forEach(CompletableFuture::join);

        assertThat(redis.command("EXISTS", "orders:42")).isEqualTo(0L);
        assertThat(meters.find("latchkey.lock.acquire").tag("outcome", "acquired").timer().count()).isGreaterThanOrEqualTo(8);
        assertThat(health.healthForPath("latchkey").getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void theScheduledReportRunsOnceAndStaysLockedForItsMinimum() {
        // Scheduled every second here, held at least four minutes: the first run holds it, the rest skip.
        await().atMost(Duration.ofSeconds(10)).until(() -> report.runs() >= 1);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> report.runs() == 1);
        assertThat(client.getLock("orders:daily-report").isLocked()).isTrue();
        assertThat(client.heldLocks()).anySatisfy(held -> assertThat(held.name()).isEqualTo("orders:daily-report"));
    }
}
