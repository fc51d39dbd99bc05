package io.latchkey.rw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.RedisInspector;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The read-write lock against one real Redis server: the rows of {@link ReadWriteLockContract},
 * plus what only a look into Redis shows: the key layout, and that nothing of a lock is left
 * once it is idle but the slot's fencing counter.
 */
class ReadWriteLockTest extends ReadWriteLockContract {

    private static RedisServer redis;
    private static RedisInspector inspector;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        inspector = new RedisInspector(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (inspector != null) {
            inspector.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return builder.address(redis.uri());
    }

    @Test
    void aNullOrEmptyNameIsRejected() {
        LockClient client = newClient();
        assertThrows(NullPointerException.class, () -> client.getReadWriteLock(null));
        assertThrows(IllegalArgumentException.class, () -> client.getReadWriteLock(""));
    }

    @Test
    void bothSidesAreNamedAfterTheLockAndAreTheSameObjectsEachTime() {
        DistributedReadWriteLock lock = lockOf(newClient());

        assertEquals(name, lock.getName());
        assertEquals(name, lock.readLock().getName());
        assertEquals(name, lock.writeLock().getName());
        assertSame(lock.readLock(), lock.readLock());
        assertSame(lock.writeLock(), lock.writeLock());
    }

    @Test
    void holdsAreFieldsOfTheLockHashWithTheirLeasesInASortedSet() {
        DistributedReadWriteLock lock = lockOf(newClient());
        String leases = "latchkey:{" + name + "}:leases";

        lock.writeLock().lock(Duration.ofSeconds(10));
        lock.readLock().lock(Duration.ofSeconds(20));
        Map<String, String> fields = inspector.commands().hgetall(name);
        String owner = ":" + Thread.currentThread().getId();
        String writeField = fields.get("writer");
        assertNotNull(writeField, "field writer names the write hold: " + fields);
        assertTrue(writeField.endsWith(owner + ":write"), "<clientId>:<ownerId>:write, got " + writeField);
        String readField = writeField.substring(0, writeField.length() - "write".length()) + "read";
        assertEquals("write", fields.get("mode"));
        assertEquals("1", fields.get(writeField));
        assertEquals("1", fields.get(readField));
        assertTrue(fields.containsKey(writeField + ":token") && fields.containsKey(readField + ":call"), fields.toString());
        assertEquals(List.of(writeField, readField), inspector.commands().zrange(leases, 0, -1), "by the end of their leases");
        long ttl = inspector.commands().pttl(name);
        assertTrue(ttl > 18_000 && ttl <= 20_000, "the keys last as long as the latest lease: " + ttl);
        long leasesTtl = inspector.commands().pttl(leases);
        assertTrue(Math.abs(ttl - leasesTtl) < 500, "the leases expire with the hash: " + leasesTtl + " and " + ttl);

        lock.writeLock().unlock();
        assertEquals("read", inspector.commands().hget(name, "mode"));
        lock.readLock().unlock();
        assertEquals(0L, inspector.commands().exists(name, leases));
    }

    @Test
    void nothingOfTheLockIsLeftOnceItIsIdleButTheSlotsFencingCounter() throws Exception {
        DistributedReadWriteLock one = lockOf(newClient());
        DistributedReadWriteLock two = lockOf(newClient());
        long reader = newOwnerId();

        // Readers, a writer that gives up waiting, a reader whose lease runs out, a downgrade.
        get(one.readLock().lockAsync(reader));
        two.readLock().lock();
        assertFalse(get(one.writeLock().tryLockAsync(Duration.ofMillis(200), Duration.ofSeconds(5), newOwnerId())));
        assertTrue(get(one.readLock().tryLockAsync(Duration.ZERO, Duration.ofMillis(200), newOwnerId())));
        get(one.readLock().unlockAsync(reader));
        two.readLock().unlock();
        within(Duration.ofSeconds(5)).until(() -> !two.readLock().isLocked());
        two.writeLock().lock();
        two.readLock().lock();
        two.writeLock().unlock();
        two.readLock().unlock();

        within(Duration.ofSeconds(5)).until(() -> inspector.commands().keys("*" + name + "*").isEmpty());
        assertEquals(1L, inspector.commands().exists(LockKeys.of(name).fenceCounter()), "the slot's counter stays");
    }
}
