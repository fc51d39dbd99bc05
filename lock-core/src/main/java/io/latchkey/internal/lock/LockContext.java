package io.latchkey.internal.lock;

import io.latchkey.LockConfig;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.spi.Ticker;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.netty.util.Timer;

/**
 * What every Redis-backed lock of one client shares.
 *
 * @param clientId the random id that prefixes every owner field of this client
 * @param config the client's configuration
 * @param executor commands and scripts on the shared connection
 * @param subscriptions unlock messages on the shared pub/sub connection
 * @param renewer the watchdog
 * @param timer the client's one timer
 * @param ticker the client's clock, read for every deadline and elapsed time
 * @param publishCommand {@code publish}, or {@code spublish} where sharded pub/sub carries unlock messages
 * @param unsettled calls whose outcome is unknown, and their settling
 * @param holds the holds of this client's owners
 */
public record LockContext(String clientId, LockConfig config, RedisExecutor executor,
                          UnlockSubscriptions subscriptions, LeaseRenewer renewer, Timer timer, Ticker ticker,
                          String publishCommand, UnsettledCalls unsettled, HoldRegistry holds) {

    /**
     * @param name a lock name
     * @return the name's keys and channels under the client's {@link LockConfig#keyPrefix() key prefix}
     */
    public LockKeys keys(String name) {
        return LockKeys.of(name, config.keyPrefix());
    }

    /**
     * @param owner an owner id
     * @return the owner's hash field: {@code <clientId>:<ownerId>}
     */
    public String field(long owner) {
        return clientId + ':' + owner;
    }

    /**
     * @param lock the lock hash
     * @param owner an owner id
     * @return the owner's hold of that lock on this client's Redis
     */
    public UnsettledCalls.HoldId hold(String lock, long owner) {
        return new UnsettledCalls.HoldId(executor, lock, field(owner));
    }

    /**
     * @param lock the lock hash
     * @return what identifies the lock hash on this client's Redis, for {@link #holds}
     */
    public Object lockId(String lock) {
        return new LockId(executor, lock);
    }

    private record LockId(Object redis, String lock) {
    }
}
