package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import io.latchkey.LocalHandOff;
import io.latchkey.internal.lock.OwnerIds;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Wakeups;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The cohorts of one client, one per plain lock that its owners hold, wait for or try now, so
 * that every lock object of one name shares one, and none is kept for a name the client only
 * asks about. An idle cohort (no Redis hold, no waiter, no claim) leaves; a call that still had it
 * finds it retired and looks again. Two cohorts of one lock may briefly coexist after such a race:
 * each has an owner id of its own in Redis, so Redis still lets only one of them hold. Thread-safe.
 */
public final class Cohorts {

    /** The cohorts' owner ids in Redis, always among the client's reserved ones ({@link OwnerIds}). */
    private final AtomicLong ids = new AtomicLong();
    private final Map<Object, Cohort> cohorts = new ConcurrentHashMap<>();
    private final LocalHandOff bounds;
    private volatile boolean closed;

    /** @param bounds the client's bounds on local hand-offs */
    public Cohorts(LocalHandOff bounds) {
        this.bounds = bounds;
    }

    /**
     * @param plain a plain lock of the client
     * @return the lock with local hand-off
     */
    public LockProtocol protocol(ReentrantLockProtocol plain) {
        return new CohortLockProtocol(plain, this, (self, tokenBlock) -> new PlainLockRedis(plain, self, tokenBlock));
    }

    /**
     * Local hand-off for a lock kind of another module (RedLock), whose Redis side is its own.
     *
     * @param lock the lock without hand-off, which serves the owners' own holds (fixed leases),
     *     the queries and the wake-ups
     * @param sides makes the Redis side of the lock's cohort: the cohort's hold on the lock's
     *     Redis, taken and released as {@link CohortRedis} says
     * @return the lock with local hand-off
     */
    public LockProtocol protocol(LockProtocol lock, RedisSides sides) {
        return new CohortLockProtocol(lock, this, sides);
    }

    /**
     * The Redis side of a cohort's hold on one of the servers of a lock kind built of plain locks
     * (a RedLock's master), which that kind combines into the side of its own cohort: the plain
     * lock's cohort calls under the cohort's owner id, except that its tries wait for no replica.
     *
     * @param plain the plain lock on that server
     * @param self the cohort's owner id in Redis
     * @param tokenBlock how many tokens the cohort's acquisition reserves on that server
     * @param kind the composite lock's kind, for events
     * @return the part
     */
    public static CohortRedis part(ReentrantLockProtocol plain, long self, int tokenBlock, String kind) {
        return new PlainLockRedis(plain, self, tokenBlock, kind, false);
    }

    /**
     * @param identity what identifies the lock on this client
     * @param sides makes the Redis side of a new cohort
     * @return the lock's cohort, made if there is none
     */
    Cohort of(Object identity, RedisSides sides) {
        Cohort cohort = cohorts.computeIfAbsent(identity, id -> {
            CohortRedis redis = sides.make(OwnerIds.reserved(ids.getAndIncrement()), HandOffBudget.tokenBlock(bounds));
            return new Cohort(this, id, redis, new HandOffBudget(bounds, redis.commandTimeout().toNanos()));
        });
        if (closed) {
            // Also one made while close() went over the cohorts, which it may not have seen.
            cohort.close();
        }
        return cohort;
    }

    /** @return the lock's cohort, or null if the client neither holds nor waits for it */
    @Nullable Cohort existing(Object identity) {
        return cohorts.get(identity);
    }

    /**
     * An attempt's wake-ups once its subscription is confirmed: the cohort is looked up then, not
     * before, since one found before may have retired meanwhile, and a waiter bound to it would be
     * left out of every hand-off (and its leaving could withdraw the live cohort's mark).
     *
     * @param subscribed the attempt's wake-ups from Redis, once subscribed
     * @return the wake-ups, the attempt counted as a waiter of the lock's live cohort
     */
    CompletableFuture<Wakeups> wakeups(Object identity, RedisSides sides, CompletableFuture<Wakeups> subscribed, long owner) {
        return subscribed.thenApply(redis -> joined(identity, sides, redis, owner));
    }

    /** @return {@code redis} with the local wake-ups of the lock's live cohort, which counts the owner as a waiter */
    Wakeups joined(Object identity, RedisSides sides, Wakeups redis, long owner) {
        while (true) {
            Cohort cohort = of(identity, sides);
            if (cohort.waiterJoined(owner)) {
                return new CohortWakeups(cohort, redis, owner);
            }
        }
    }

    /**
     * @return the owner's release through the lock's cohort; null if the client has no cohort of
     *     the lock, so that the owner's hold, if any, is its own (a fixed lease)
     */
    @Nullable CompletableFuture<Void> release(Object identity, long owner) {
        while (true) {
            Cohort cohort = existing(identity);
            if (cohort == null) {
                return null;
            }
            CompletableFuture<Void> released = cohort.release(owner);
            if (released != null) {
                return released;
            }
        }
    }

    /** An attempt of the owner left without the lock: if it was the client's last, its claim on the lock goes. */
    void attemptLeft(Object identity, long owner) {
        Cohort cohort = existing(identity);
        if (cohort != null) {
            cohort.attemptLeft(owner);
        }
    }

    /**
     * @return the owner's levels and the cohort hold's token if it holds through the lock's cohort;
     *     null if not, with no cohort made for a lock the client neither holds nor waits for
     */
    @Nullable LocalHold localHold(Object identity, long owner) {
        Cohort cohort = existing(identity);
        return cohort == null ? null : cohort.localHold(owner);
    }

    void retire(Object identity, Cohort cohort) {
        cohorts.remove(identity, cohort);
    }

    /** The client is closing: every cohort's tries fail from now on, and its waiters hear of it. */
    public void close() {
        closed = true;
        List.copyOf(cohorts.values()).forEach(Cohort::close);
    }

    /** Makes the Redis side of a new cohort. */
    @FunctionalInterface
    public interface RedisSides {

        /**
         * Makes the Redis side of the cohort that {@code self} names in Redis.
         *
         * @param self the cohort's owner id in Redis
         * @param tokenBlock how many tokens its Redis acquisition reserves
         * @return the Redis side
         */
        CohortRedis make(long self, int tokenBlock);
    }

    @Override
    public String toString() {
        return "Cohorts" + cohorts.values();
    }

    /** @return the cohorts now active, for tests and diagnostics */
    public int size() {
        return cohorts.size();
    }
}
