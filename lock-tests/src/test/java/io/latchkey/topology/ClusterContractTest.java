package io.latchkey.topology;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.contract.DistributedLockContract;
import io.latchkey.contract.VariantRows;
import io.latchkey.testing.RedisCluster;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rows of the API's semantics table that a topology can change, for the plain lock on a Redis
 * Cluster of three masters: the same assertions as on one server, through slot routing and
 * sharded pub/sub ({@link VariantRows}; the client-side rows run in {@code PlainLockTest}).
 * "Redis down" kills every node; the restarted nodes rejoin the cluster from their saved
 * cluster configuration. "Redis too slow" pauses every node.
 */
@ExtendWith(VariantRows.class)
class ClusterContractTest extends DistributedLockContract {

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

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getLock(name);
    }

    @Override
    protected void killRedis() {
        cluster.nodes().forEach(RedisServer::kill);
    }

    @Override
    protected void restartRedis() {
        cluster.nodes().forEach(RedisServer::restart);
        cluster.awaitHealthy(Duration.ofSeconds(30));
    }

    @Override
    protected void pauseRedis() {
        cluster.nodes().forEach(RedisServer::pause);
    }

    @Override
    protected void resumeRedis() {
        cluster.nodes().forEach(RedisServer::resume);
        // Nodes that missed each other's pings for a while may briefly mark each other failing.
        cluster.awaitHealthy(Duration.ofSeconds(30));
    }
}
