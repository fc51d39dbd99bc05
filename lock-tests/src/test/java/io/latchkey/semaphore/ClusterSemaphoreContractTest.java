package io.latchkey.semaphore;

import io.latchkey.LockConfig;
import io.latchkey.testing.RedisCluster;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The semaphore contract on a Redis Cluster of three masters: every script on one slot, wake-ups
 * by sharded pub/sub. "Redis down" kills every node, "too slow" pauses every node.
 */
class ClusterSemaphoreContractTest extends DistributedSemaphoreContract {

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
    protected RedisServer serverOf(String key) {
        return cluster.masterFor(key);
    }

    @Override
    protected List<String> holderAddress() {
        return List.of("cluster", String.join(",", cluster.seedUris()));
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
        cluster.awaitHealthy(Duration.ofSeconds(30));
    }
}
