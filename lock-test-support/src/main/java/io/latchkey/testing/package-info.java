/**
 * A real {@code redis-server} for tests, without Docker (artifact {@code io.latchkey:latchkey-test}).
 *
 * <p>For an application's tests: {@link io.latchkey.testing.WithRedisServer} on a JUnit 5 test
 * class (through {@link io.latchkey.testing.RedisServerExtension}) runs one server for the test
 * run and puts its URI where Spring Boot reads {@code latchkey.address}.
 * {@link io.latchkey.testing.RedisServer} is one server process on a free loopback port, which
 * a test may also stop, kill, pause, resume and restart; {@link io.latchkey.testing.RedisBinary}
 * decides which executable runs: {@code -Dlatchkey.redis.server=/path}, else {@code redis-server}
 * on {@code PATH}, else the binary embedded-redis ships for Linux and macOS. Every process started
 * here is killed when its owner is closed, and at the latest when the JVM exits normally.
 *
 * <p>Latchkey's own fault tests add servers of other shapes (several masters, a Cluster, Sentinel,
 * TLS, a fault proxy) in the same package, in its {@code lock-tests} module, which is not
 * published.
 */
package io.latchkey.testing;
