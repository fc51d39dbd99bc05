package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.fencing.FencedResource;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The usage examples of the README, compiled and run so that they cannot rot. The body of
 * {@link #readmeExample(String)} is the README's example line for line, except that the URI is a
 * parameter and the critical section records that it ran; the body of
 * {@link #readmeFencingExample(LockClient, RedisCommands, AtomicBoolean)} is the fencing example,
 * and the script it shows is the one the fencing tests run; the body of
 * {@link #readmeReadWriteExample(LockClient, AtomicBoolean, AtomicBoolean)} is the read-write
 * lock's example.
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

    private static final String FENCED_WRITE = FencedResource.FENCED_WRITE;

    private static Long readmeFencingExample(LockClient client, RedisCommands<String, String> redis, AtomicBoolean stop) {
        Long result; // not in the README
        DistributedLock lock = client.getLock("stock:42");
        try (LockHold hold = lock.acquire()) {                  // waits like lock(); watchdog lease
            hold.leaseLost().thenRun(() -> stop.set(true));     // on a client thread, once the lease is known lost
            long token = hold.fencingToken();                   // > the token of every earlier hold of "stock:42"
            Long written = redis.eval(FENCED_WRITE, ScriptOutputType.INTEGER,   // Lettuce; 1 written, 0 refused
                    new String[] {"stock:42:count"}, Long.toString(token), "41");
            result = written; // not in the README
        }                                                       // close(): LeaseLostException if the lease was lost
        return result;
    }

    @Test
    void readmeFencingExampleWritesWithItsTokenAndReleasesTheLock() {
        RedisClient raw = RedisClient.create(redis.uri());
        try (LockClient client = LockClient.create(redis.uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            AtomicBoolean stop = new AtomicBoolean();
            assertEquals(1L, readmeFencingExample(client, connection.sync(), stop));
            assertEquals(1L, readmeFencingExample(client, connection.sync(), stop), "the next hold writes too");
            assertEquals("41", connection.sync().hget("stock:42:count", "value"));
            assertFalse(stop.get(), "no lease was lost");
            assertFalse(client.getLock("stock:42").isLocked(), "the example leaves no lock behind");
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static void readmeReadWriteExample(LockClient client, AtomicBoolean read, AtomicBoolean wrote) {
        DistributedReadWriteLock prices = client.getReadWriteLock("prices:eu");
        prices.readLock().lock();                           // shared with every other reader
        try {
            // read; writers wait
            read.set(prices.readLock().isHeldByCurrentThread()); // not in the README
        } finally {
            prices.readLock().unlock();
        }
        try (LockHold hold = prices.writeLock().acquire()) { // alone: no reader, no other writer
            // write, fenced with hold.fencingToken() where it matters
            wrote.set(hold.fencingToken() > 0 && !prices.readLock().isLocked()); // not in the README
        }
    }

    @Test
    void readmeReadWriteExampleReadsThenWritesAndReleasesBoth() {
        try (LockClient client = LockClient.create(redis.uri())) {
            AtomicBoolean read = new AtomicBoolean();
            AtomicBoolean wrote = new AtomicBoolean();
            readmeReadWriteExample(client, read, wrote);
            assertTrue(read.get() && wrote.get(), "the example read, then wrote alone");
            DistributedReadWriteLock observer = client.getReadWriteLock("prices:eu");
            assertFalse(observer.readLock().isLocked() || observer.writeLock().isLocked(), "the example leaves no lock behind");
        }
    }

    @Test
    void theReadmeShowsTheFencedWriteScriptTheTestsRun() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("```lua\n");
        assertTrue(start >= 0, "the README shows a Lua block");
        int end = readme.indexOf("```", start + 7);
        assertEquals(FENCED_WRITE, readme.substring(start + 7, end));
    }
}
