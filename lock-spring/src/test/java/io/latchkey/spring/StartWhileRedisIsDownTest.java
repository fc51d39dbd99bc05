package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockConnectionException;
import io.latchkey.LockHold;
import io.latchkey.LockRefusedException;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/** {@code latchkey.startup.fail-if-unreachable}: whether the application starts while Redis is down. */
class StartWhileRedisIsDownTest {

    @Test
    void byDefaultTheApplicationDoesNotStartWhileRedisIsDown() {
        try (RedisServer redis = RedisServer.start()) {
            redis.stop();
            assertThatThrownBy(() -> TestApplication.run("latchkey.address=" + redis.uri()).close())
                    .satisfies(failure -> assertThat(cause(failure, LockConnectionException.class)).hasMessageContaining(redis.uri()));
        }
    }

    @Test
    void notFailingIfUnreachableTheApplicationStartsDownAndConnectsWhenRedisComes() {
        try (RedisServer redis = RedisServer.start()) {
            redis.stop(); // its port is now one where nothing listens
            try (ConfigurableApplicationContext app = TestApplication.run("latchkey.address=" + redis.uri(),
                    "latchkey.startup.fail-if-unreachable=false")) {
                HealthIndicator health = app.getBean("latchkeyHealthIndicator", HealthIndicator.class);
                assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
                assertThat(health.health(true).getDetails()).containsEntry("redis", redis.uri());
                OrderService orders = app.getBean(OrderService.class);
                assertThatThrownBy(() -> orders.ship(new OrderService.Order(1))).isInstanceOf(LockConnectionException.class)
                        .hasMessageContaining(redis.uri());

                redis.restart();
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(health.health(true).getStatus()).isEqualTo(Status.UP));
                LockHold hold = orders.ship(new OrderService.Order(1));
                assertThat(hold.fencingToken()).isPositive();
            }
        }
    }

    @Test
    void closingTheApplicationBeforeRedisComesEndsTheAttempts() {
        try (RedisServer redis = RedisServer.start()) {
            redis.stop();
            TestApplication.run("latchkey.address=" + redis.uri(), "latchkey.startup.fail-if-unreachable=false").close();
            await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(thread -> thread.getName().equals("latchkey-connect")));
        }
    }

    @Test
    void notFailingIfUnreachableARedisThatRefusesTheClientStillFailsTheStart() {
        try (RedisServer redis = RedisServer.start("--requirepass", "secret")) {
            assertThatThrownBy(() -> TestApplication.run("latchkey.address=" + redis.uri(),
                    "latchkey.startup.fail-if-unreachable=false").close())
                    .satisfies(failure -> assertThat(cause(failure, LockRefusedException.class)).isNotNull());
        }
    }

    /** {@return the first exception of that type in the chain of causes, or null} */
    private static Throwable cause(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return cause;
            }
        }
        return null;
    }
}
