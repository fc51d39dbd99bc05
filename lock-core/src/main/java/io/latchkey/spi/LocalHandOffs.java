package io.latchkey.spi;

import io.latchkey.LocalHandOff;
import io.latchkey.internal.cohort.Cohorts;
import io.latchkey.internal.lock.ReentrantLockProtocol;

/**
 * Local hand-off for a lock kind in another module whose hold is made of plain locks (a
 * RedLock's quorum): the plain lock's cohorts, which pass a hold between the owners of one client,
 * over the Redis side the kind gives them ({@link CohortRedis}). One of the SPI's three ways into
 * lock-core's internals, with {@link LockFacades} and {@link KindFailures}: the kind never sees
 * the cohort itself. Thread-safe.
 */
public final class LocalHandOffs implements AutoCloseable {

    private final Cohorts cohorts;

    /** @param bounds the client's bounds on a hand-off (its {@code LocalHandOff} option) */
    public LocalHandOffs(LocalHandOff bounds) {
        this.cohorts = new Cohorts(bounds);
    }

    /** Makes the Redis side of a new cohort of a lock. */
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

    /**
     * @param lock the kind's lock without hand-off: owners' own holds, the queries and the wake-ups go to it
     * @param sides makes the Redis side of the lock's cohort, whose calls match {@code lock}'s
     * @return the lock with local hand-off, to serve with {@link LockFacades#serve}
     */
    public LockProtocol protocol(LockProtocol lock, RedisSides sides) {
        return cohorts.protocol(lock, sides::make);
    }

    /**
     * The Redis side of a cohort's hold on one plain lock of a composite (a RedLock's master),
     * which the composite combines into the side of its own cohort: the plain lock's cohort calls
     * under the cohort's owner id, except that its tries wait for no replica.
     *
     * @param plain the plain lock on that server, as {@link LockServer#plainLock} gave it
     * @param self the cohort's owner id in Redis
     * @param tokenBlock how many tokens the cohort's acquisition reserves on that server
     * @param kind the composite lock's kind, for events
     * @return the part
     */
    public static CohortRedis part(PlainLock plain, long self, int tokenBlock, String kind) {
        return Cohorts.part(plainLock(plain), self, tokenBlock, kind);
    }

    /** The client is closing: every cohort's tries fail from now on, and its waiters hear of it. */
    @Override
    public void close() {
        cohorts.close();
    }

    @Override
    public String toString() {
        return cohorts.toString();
    }

    private static ReentrantLockProtocol plainLock(PlainLock plain) {
        if (plain instanceof ReentrantLockProtocol reentrant) {
            return reentrant;
        }
        throw new IllegalArgumentException("not a plain lock of lock-core: " + plain);
    }
}
