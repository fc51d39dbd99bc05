package io.latchkey.contract;

import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract against one real Redis server that the class starts, kills, pauses and restarts
 * for the "Redis down or slow" rows; subclasses choose the lock kind.
 */
public abstract class SingleServerContract extends DistributedLockContract {

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

    /** @return the server of this test class */
    protected static RedisServer redis() {
        return redis;
    }

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return builder.address(redis.uri());
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
