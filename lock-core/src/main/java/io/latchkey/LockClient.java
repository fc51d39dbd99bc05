package io.latchkey;

import io.latchkey.internal.client.DefaultLockClient;
import java.util.List;

/**
 * The entry point: one client per application and Redis topology, shared by every thread.
 *
 * <p>A client owns one command connection, one pub/sub connection and one timer thread for
 * lease renewal, whatever the number of locks. Locks obtained from it are cheap views: getting
 * the same name twice yields two objects for the same Redis lock.
 *
 * <p>Thread-safe. {@link #close()} stops lease renewal and closes the connections; locks still
 * held then are not released but expire after their lease.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.create("redis://localhost:6379")) {
 *     DistributedLock lock = client.getLock("orders:42");
 *     lock.lock();
 *     try {
 *         // one holder at a time, across every JVM using this Redis
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 */
public interface LockClient extends AutoCloseable {

    /**
     * Connects to Redis as the configuration says.
     *
     * @param config the configuration, not null
     * @return a connected client
     * @throws LockConnectionException if Redis cannot be reached
     * @throws LockRefusedException if Redis refuses the credentials or a permission
     */
    static LockClient create(LockConfig config) {
        return DefaultLockClient.connect(config);
    }

    /**
     * Connects to one Redis server or Sentinel group; the same as
     * {@code create(LockConfig.builder().address(redisUri).build())}.
     *
     * @param redisUri a {@code redis://}, {@code rediss://} or {@code redis-sentinel://} URI, not null
     * @return a connected client
     * @throws IllegalArgumentException if the URI cannot be parsed
     * @throws LockConnectionException if Redis cannot be reached
     * @throws LockRefusedException if Redis refuses the credentials or a permission
     */
    static LockClient create(String redisUri) {
        return create(LockConfig.builder().address(redisUri).build());
    }

    /**
     * A reentrant, non-fair lock whose watchdog lease is renewed while it is held.
     *
     * @param name the lock's name, which is also its Redis key; not null or empty
     * @return the lock
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is empty
     */
    DistributedLock getLock(String name);

    /**
     * A reentrant lock granted strictly in arrival order among live waiters.
     *
     * @param name the lock's name; not null or empty
     * @return the lock
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if {@code io.latchkey:lock-fair} is not on the class path
     */
    DistributedLock getFairLock(String name);

    /**
     * A lock held only while a majority of the independent masters of
     * {@link LockConfig.Builder#redLockAddresses(String...)} hold it.
     *
     * @param name the lock's name; not null or empty
     * @return the lock
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalStateException if {@code io.latchkey:lock-redlock} is not on the class path,
     *     or no RedLock masters were configured
     */
    DistributedLock getRedLock(String name);

    /**
     * A read-write lock: shared readers, one exclusive writer, writers not starved by readers.
     *
     * @param name the lock's name, which is also its Redis key; not null or empty
     * @return the read-write lock
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is empty
     */
    DistributedReadWriteLock getReadWriteLock(String name);

    /**
     * A semaphore of leased permits.
     *
     * @param name the semaphore's name; not null or empty
     * @param permits how many permits may be out at once; at least 1
     * @return the semaphore
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is empty or {@code permits < 1}
     */
    DistributedSemaphore getSemaphore(String name, int permits);

    /**
     * A lock over several locks, all or none: it takes every part, in an order that cannot
     * deadlock with another multi-lock over the same locks, or, on timeout or failure, releases
     * the parts it took before returning. Its holds list a hold per part
     * ({@link LockHold#parts()}) and have no fencing token of their own.
     *
     * @param locks the parts: at least one, of any kinds and any clients, none null
     * @return the multi-lock
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalArgumentException if {@code locks} is empty
     */
    DistributedLock getMultiLock(DistributedLock... locks);

    /**
     * The holds that this client's owners have now, of every lock kind, for diagnostics: read from
     * the client's own record, without a round trip to Redis (see {@link HeldLock} for what that
     * means for a hold another client just took away). A hold appears with its first grant and
     * disappears at its last release, or once the client has given it up for lost. A multi-lock
     * shows as its parts' holds; a semaphore's permits, which are not locks, do not show.
     *
     * @return a snapshot, in no particular order; empty if nothing is held, also once closed
     * @since 0.3
     */
    List<HeldLock> heldLocks();

    /** Stops lease renewal, fails pending waits and closes every connection. Idempotent. */
    @Override
    void close();
}
