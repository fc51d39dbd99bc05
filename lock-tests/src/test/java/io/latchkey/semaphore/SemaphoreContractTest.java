package io.latchkey.semaphore;

import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore contract against one real Redis server, killed, paused and restarted for the fault rows. */
class SemaphoreContractTest extends DistributedSemaphoreContract {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return builder.address(redis.uri());
    }

    @Override
    protected RedisServer serverOf(String key) {
        return redis;
    }

    @Override
    protected List<String> holderAddress() {
        return List.of("address", redis.uri());
    }

    @Override
    protected void killRedis() {
        redis.kill();
    }

    @Override
    protected void restartRedis() {
        redis.restart();
    }

    @Override
    protected void pauseRedis() {
        redis.pause();
    }

    @Override
    protected void resumeRedis() {
        redis.resume();
    }
}
