package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@link WithRedisServer}: a running server, injected and named in a system property while the class runs. */
@WithRedisServer
class WithRedisServerTest {

    private static RedisServer before;

    @BeforeAll
    static void lifecycleMethodsGetTheServer(RedisServer redis) {
        before = redis;
        assertThat(System.getProperty("latchkey.address")).isEqualTo(redis.uri());
    }

    @AfterAll
    static void thePropertyStaysUntilTheClassEnds() {
        assertThat(System.getProperty("latchkey.address")).isEqualTo(before.uri());
    }

    @Test
    void testsGetTheOneRunningServerAndItsUriIsInTheProperty(RedisServer redis) {
        assertThat(redis).isSameAs(before);
        assertThat(redis.isRunning()).isTrue();
        assertThat(redis.ping(Duration.ofSeconds(2))).isTrue();
        assertThat(redis.uri()).startsWith("redis://127.0.0.1:").isEqualTo(System.getProperty("latchkey.address"));
        assertThat(redis.command("SET", "with-redis-server", "1")).isEqualTo("OK");
    }

    @Nested
    class NestedClasses {
        @Test
        void shareTheServer(RedisServer redis) {
            assertThat(redis).isSameAs(before);
            assertThat(System.getProperty("latchkey.address")).isEqualTo(redis.uri());
        }
    }
}
