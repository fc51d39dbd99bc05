package io.latchkey.internal.lock;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.LockServer;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What every Redis-backed lock of one client shares on one Redis: the {@link LockServer} that
 * lock kinds of other modules see, and the parts behind it that only lock-core's kinds reach.
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
                          String publishCommand, UnsettledCalls unsettled, HoldRegistry holds) implements LockServer {

    @Override
    public LockKeys keys(String name) {
        return LockKeys.of(name, config.keyPrefix());
    }

    @Override
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

    @Override
    public Object lockId(String lock) {
        return new LockId(executor, lock);
    }

    /** The client's {@link LockConfig#watchdogTimeout()}, which its watchdog was built with. */
    @Override
    public Duration watchdogLease() {
        return config.watchdogTimeout();
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(String channel, @Nullable String address) {
        return subscriptions.join(channel, address);
    }

    @Override
    public @Nullable Wakeups wakeupsIfSubscribed(String channel, @Nullable String address) {
        return subscriptions.joinIfSubscribed(channel, address);
    }

    @Override
    public LeaseRegistration register(String lock, long owner, RenewedLease lease) {
        return renewer.renew(executor, lock, field(owner), lease);
    }

    @Override
    public ReentrantLockProtocol plainLock(String name) {
        return new ReentrantLockProtocol(name, this);
    }

    @Override
    public HoldCalls countedHolds(String name, String lock, HoldScripts scripts) {
        return new HoldCalls(name, lock, this, scripts);
    }

    @Override
    public <T> CompletableFuture<T> sendOrSettleLater(String lock, long owner, String what,
                                                      Supplier<CompletableFuture<T>> call,
                                                      Supplier<CompletableFuture<?>> again) {
        return unsettled.sendOrSettleLater(hold(lock, owner), what, call, again);
    }

    private record LockId(Object redis, String lock) {
    }
}
