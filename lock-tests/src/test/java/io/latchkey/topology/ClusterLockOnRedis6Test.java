package io.latchkey.topology;

import io.latchkey.testing.RedisBinary;
import io.latchkey.testing.RedisCluster;
import java.util.Optional;

/**
 * {@link ClusterLockTest} on a cluster of Redis 6.2 (the binary embedded-redis ships), where
 * sharded pub/sub does not exist: unlock messages go over classic pub/sub, which the cluster
 * broadcasts to every node. Skipped where the default server is older than 7 already (then
 * {@link ClusterLockTest} covers it) or no embedded binary exists for this platform.
 */
class ClusterLockOnRedis6Test extends ClusterLockTest {

    @Override
    protected Optional<String> skipReason() {
        if (!RedisBinary.atLeast(7)) {
            return Optional.of("the default redis-server is " + RedisBinary.version()
                    + " already, so ClusterLockTest runs on classic pub/sub");
        }
        if (RedisBinary.embedded().isEmpty()) {
            return Optional.of("embedded-redis ships no binary for " + System.getProperty("os.name")
                    + "/" + System.getProperty("os.arch"));
        }
        return Optional.empty();
    }

    @Override
    protected RedisCluster startCluster() {
        String previous = System.getProperty(RedisBinary.EMBEDDED_PROPERTY);
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "true");
        try {
            RedisCluster cluster = RedisCluster.start(3, 0);
            if (cluster.nodes().get(0).majorVersion() >= 7) {
                cluster.close();
                throw new IllegalStateException("the embedded binary is not older than Redis 7");
            }
            return cluster;
        } finally {
            if (previous == null) {
                System.clearProperty(RedisBinary.EMBEDDED_PROPERTY);
            } else {
                System.setProperty(RedisBinary.EMBEDDED_PROPERTY, previous);
            }
        }
    }
}
