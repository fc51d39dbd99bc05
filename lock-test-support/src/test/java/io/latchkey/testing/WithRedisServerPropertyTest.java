package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link WithRedisServer#property()}: the URI under the property the class names, and not under the default. */
@WithRedisServer(property = "spring.data.redis.url")
class WithRedisServerPropertyTest {

    @Test
    void theUriIsUnderTheNamedProperty(RedisServer redis) {
        assertThat(System.getProperty("spring.data.redis.url")).isEqualTo(redis.uri());
        assertThat(System.getProperty("latchkey.address")).as("set only by classes that name it").isNull();
    }
}
