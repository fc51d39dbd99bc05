package io.latchkey.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.contract.DistributedLockContract;
import io.latchkey.contract.VariantRows;
import io.latchkey.testing.RedisCluster;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract of every lock kind for a multi-lock on a Redis Cluster of three masters, its two
 * parts on different masters (so on different slots): each part's scripts stay in its own slot,
 * and the multi-lock spans them. "Redis down" kills every node, "too slow" pauses every node.
 * See {@link MultiLockRows} for the rows that cannot hold; the client-side rows run in
 * {@code MultiLockContractTest} ({@link VariantRows}).
 */
@ExtendWith({MultiLockRows.class, VariantRows.class})
class ClusterMultiLockContractTest extends DistributedLockContract {

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
        DistributedLock first = client.getLock(name);
        return client.getMultiLock(first, client.getLock(onAnotherMaster(name)));
    }

    /** @return a name derived from {@code name} whose key lives on another master */
    private static String onAnotherMaster(String name) {
        RedisServer master = cluster.masterFor(name);
        for (int i = 0; ; i++) {
            String candidate = name + ":other-" + i;
            if (cluster.masterFor(candidate).port() != master.port()) {
                return candidate;
            }
        }
    }

    @Override
    protected long tokenOf(LockHold hold) {
        return MultiLockRows.tokenOf(hold);
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
