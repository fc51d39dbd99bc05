package io.latchkey.internal.lock;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

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

    /**
     * @return the lease that a hold the watchdog renews takes and keeps: the client's
     *     {@link LockConfig#watchdogTimeout()}, which its watchdog was built with; every kind
     *     reads it here
     */
    public Duration watchdogLease() {
        return config.watchdogTimeout();
    }

    /**
     * Joins an unlock channel on the client's shared subscription; the future completes once
     * Redis confirmed the subscription, so that a try made after it cannot miss an unlock.
     *
     * @param channel the unlock channel
     * @param address the waiter's own name in messages that name one waiter; null if the lock
     *     kind sends unaddressed messages
     * @return wake-ups for one acquire attempt; close them when done
     */
    public CompletableFuture<Wakeups> wakeups(String channel, String address) {
        return subscriptions.join(channel, address);
    }

    /**
     * Joins an unlock channel only if it is already subscribed and confirmed, which costs no
     * round trip.
     *
     * @param channel the unlock channel
     * @param address as for {@link #wakeups}
     * @return wake-ups ready now, or null if the channel is not subscribed
     */
    public Wakeups wakeupsIfSubscribed(String channel, String address) {
        return subscriptions.joinIfSubscribed(channel, address);
    }

    /**
     * Has the watchdog renew an owner's hold as a whole until cancelled or found gone, whatever
     * its levels: for kinds that manage a hold's lease themselves (RedLock, on each master).
     * Registering a hold that is already registered only pins it: it keeps its lease.
     *
     * @param lock the lock hash
     * @param owner the owner id
     * @param lease told how each renewal goes
     * @return the registration of {@code lease}
     */
    public LeaseRegistration register(String lock, long owner, RenewedLease lease) {
        return renewer.register(executor, lock, field(owner), lease);
    }

    private record LockId(Object redis, String lock) {
    }
}
