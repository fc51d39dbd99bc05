package io.latchkey.internal.rw;

import io.latchkey.LocalHandOff;
import io.latchkey.internal.lock.OwnerIds;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The shared read holds of one client, one per read-write lock that its readers hold or try now,
 * so that every lock object of one name shares one, and none is kept for a name nobody reads. An
 * idle share (no Redis hold, no reader, no try waiting) leaves; a call that still had it finds it
 * retired and looks again. Two shares of one lock may briefly coexist after such a race: each has
 * an owner id of its own in Redis, where each is an ordinary read hold. Thread-safe.
 */
public final class ReadShares {

    /**
     * The shares' owner ids start half-way through the client's reserved ids, so that they never
     * meet the plain locks' cohorts' (which count from the bottom) in a line of unsettled calls.
     */
    private static final long FIRST_ID = OwnerIds.RESERVED / 2;

    private final AtomicLong ids = new AtomicLong(FIRST_ID);
    private final Map<Object, ReadShare> shares = new ConcurrentHashMap<>();
    private final LocalHandOff bounds;
    private volatile boolean closed;

    /** @param bounds the client's bounds on local hand-offs, which bound local admissions as well */
    public ReadShares(LocalHandOff bounds) {
        this.bounds = bounds;
    }

    /**
     * @param key what identifies the lock on this client
     * @param sides makes the Redis side of a new share
     * @return the lock's share, made if there is none
     */
    ReadShare of(Object key, RedisSides sides) {
        ReadShare share = shares.computeIfAbsent(key, id -> {
            ShareRedis redis = sides.make(OwnerIds.reserved(ids.getAndIncrement()), AdmissionBudget.tokenBlock(bounds));
            return new ReadShare(this, id, redis, new AdmissionBudget(bounds, redis.commandTimeout().toNanos()));
        });
        if (closed) {
            // Also one made while close() went over the shares, which it may not have seen.
            share.close();
        }
        return share;
    }

    /** @return the lock's share, or null if none of the client's readers holds or tries it */
    @Nullable ReadShare existing(Object key) {
        return shares.get(key);
    }

    void retire(Object key, ReadShare share) {
        shares.remove(key, share);
    }

    /**
     * @param key what identifies the lock on this client
     * @return the client's readers of that lock, as its write side sees them
     */
    LocalReaders readers(Object key) {
        return new LocalReaders() {
            @Override
            public boolean readsLocally(long owner) {
                ReadShare share = existing(key);
                return share != null && share.readsLocally(owner);
            }

            @Override
            public void writerWaits() {
                ReadShare share = existing(key);
                if (share != null) {
                    share.writerWaits();
                }
            }
        };
    }

    /** The client is closing: every share's tries fail from now on. */
    public void close() {
        closed = true;
        List.copyOf(shares.values()).forEach(ReadShare::close);
    }

    /** @return the shares now active, for tests and diagnostics */
    public int size() {
        return shares.size();
    }

    @Override
    public String toString() {
        return "ReadShares" + shares.values();
    }

    /** Makes the Redis side of a new share. */
    @FunctionalInterface
    interface RedisSides {

        /**
         * @param self the share's owner id in Redis
         * @param tokenBlock how many tokens its grant and each reserve take
         * @return the Redis side
         */
        ShareRedis make(long self, int tokenBlock);
    }
}
