/**
 * Test infrastructure, not part of Latchkey's API: real {@code redis-server} processes on free
 * loopback ports, for the integration and fault tests (lock-tests), the starter's tests and the
 * benchmarks. The single server ({@code RedisServer}, {@code RedisBinary},
 * {@code RedisFixtureException}) lives in the same package in the published {@code latchkey-test}
 * artifact (directory {@code lock-test-support}), which applications' tests use too; the rest is
 * here. The package is split over the two jars, which share a class path (this module is never on
 * a module path).
 *
 * <p>{@link io.latchkey.testing.RedisServer} runs one server and can stop, kill, pause, resume
 * and restart it, and send it raw commands; {@link io.latchkey.testing.RedisServers} runs several
 * independent masters; {@link io.latchkey.testing.RedisCluster} a Redis Cluster with replicas;
 * {@link io.latchkey.testing.RedisSentinelGroup} a master, replicas and Sentinels;
 * {@link io.latchkey.testing.TlsRedisServer} a server with a TLS port and a certificate made for
 * the run; {@link io.latchkey.testing.RedisBinary} decides which executable runs. Every process started
 * here is killed when its owner is closed, and at the latest when the JVM exits normally.
 * {@link io.latchkey.testing.FaultProxy} sits between a client and one server and breaks the
 * network instead of the server: a lost reply, a black hole, late replies, reset connections.
 *
 * <p>The types here may change with the needs of the tests; nothing outside Latchkey's own
 * build should depend on them.
 */
package io.latchkey.testing;
