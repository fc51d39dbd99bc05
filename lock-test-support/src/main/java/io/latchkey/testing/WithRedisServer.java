package io.latchkey.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against a real {@code redis-server}, without Docker: the one on
 * {@code PATH}, else the one embedded-redis ships for the platform (Linux and macOS; see
 * {@link RedisBinary#path()}). Through {@link RedisServerExtension}:
 * <ul>
 *   <li>one server for the whole test run, started by the first class that asks for it and shared
 *       by every class that does, so that Spring's cached application contexts stay connected to a
 *       live server; stopped when the run ends (JUnit 5.13 or newer; with an older JUnit, when
 *       the JVM exits);</li>
 *   <li>its URI, such as {@code redis://127.0.0.1:40123}, in the system property {@link #property()}
 *       ({@code latchkey.address} unless set) while the class runs, which a Spring Boot test binds
 *       like any other property;</li>
 *   <li>the {@link RedisServer} as a parameter of test methods, lifecycle methods and constructors.</li>
 * </ul>
 *
 * <pre>{@code
 * @SpringBootTest
 * @WithRedisServer
 * class ShippingTest {
 *     @Autowired OrderService orders;
 *
 *     @Test
 *     void shipsUnderTheLock(RedisServer redis) { ... }
 * }
 * }</pre>
 *
 * <p>The server is shared: give each test lock names of its own, or clear it with
 * {@code redis.command("FLUSHALL")}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServerExtension.class)
public @interface WithRedisServer {

    /**
     * {@return the system property that holds the server's URI while the class runs:
     * {@code latchkey.address} by default, {@code spring.data.redis.url} for an application that
     * configures Redis through Spring Data Redis}
     */
    String property() default "latchkey.address";
}
