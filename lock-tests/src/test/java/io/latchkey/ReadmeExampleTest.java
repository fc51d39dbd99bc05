package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.testing.RedisServer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The usage example of the README, compiled and run so that it cannot rot. The body of
 * {@link #readmeExample(String)} is the README's example line for line, except that the URI is a
 * parameter and the critical section records that it ran.
 */
class ReadmeExampleTest {

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

    private final AtomicBoolean criticalSectionRan = new AtomicBoolean();

    private void readmeExample(String redisUri) {
        try (LockClient client = LockClient.create(redisUri)) {
            DistributedLock lock = client.getLock("orders:42");
            lock.lock();                        // waits; the watchdog renews the lease while held
            try {
                // one holder at a time, across every JVM that uses this Redis
                criticalSectionRan.set(lock.isHeldByCurrentThread()); // not in the README
            } finally {
                lock.unlock();
            }
            lock.lockAsync(42L)                 // async, for an explicit owner id
                    .thenCompose(held -> lock.unlockAsync(42L))
                    .join();
        }
    }

    @Test
    void readmeExampleRunsAndReleasesTheLock() {
        readmeExample(redis.uri());

        assertTrue(criticalSectionRan.get(), "the critical section ran while holding the lock");
        try (LockClient observer = LockClient.create(redis.uri())) {
            assertFalse(observer.getLock("orders:42").isLocked(), "the example leaves no lock behind");
        }
    }
}
