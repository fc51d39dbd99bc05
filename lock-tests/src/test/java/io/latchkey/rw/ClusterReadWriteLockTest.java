package io.latchkey.rw;

import io.latchkey.LockConfig;
import io.latchkey.testing.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The rows of {@link ReadWriteLockContract} on a Redis Cluster of three masters: every script
 * touches the one slot of the lock's name, and wake-ups go by sharded pub/sub on Redis 7.
 */
class ClusterReadWriteLockTest extends ReadWriteLockContract {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return builder.clusterAddresses(cluster.seedUris());
    }
}
