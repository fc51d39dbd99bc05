package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @Locked} annotations that cannot work fail the application's start, naming the method (issue 24). */
class LockedAnnotationChecksTest {

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void skipOnAMethodReturningAPrimitiveFailsTheStart() {
        assertThatThrownBy(() -> start(PrimitiveSkip.class)).rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Locked on public int " + Counter.class.getName() + ".next()")
                .hasMessageContaining("onTimeout = SKIP");
    }

    private static ConfigurableApplicationContext start(Class<?> beans) {
        return TestApplication.run(beans, "latchkey.address=" + redis.uri());
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimitiveSkip {
        @Bean
        Counter counter() {
            return new Counter();
        }
    }

    /** SKIP cannot return nothing from an {@code int}. */
    public static class Counter {
        private int next;

        @Locked(name = "counter", onTimeout = Locked.OnTimeout.SKIP)
        public int next() {
            return ++next;
        }
    }
}
