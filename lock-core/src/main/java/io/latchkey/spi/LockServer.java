package io.latchkey.spi;

import io.latchkey.LockConfig;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One Redis (a server, or a Cluster) as every lock of a client shares it: the client's own
 * ({@link KindContext#lockContext()}), or one more server connected for a kind
 * ({@link KindContext#connect}, a RedLock master). A lock kind builds on it: its keys, its
 * scripts, its wake-ups, the plain lock of a name, the counted holds that the plain and fair
 * locks share, and the client's record of holds, watchdog, timer and clock. Thread-safe; nothing
 * here blocks.
 */
public interface LockServer {

    /** @return the configuration of the client that connected this Redis */
    LockConfig config();

    /** @return the random id that prefixes every owner field of the client, unique per client */
    String clientId();

    /**
     * @return the lease that a hold the watchdog renews takes and keeps: the client's
     *     {@link LockConfig#watchdogTimeout()}; every kind reads it here
     */
    Duration watchdogLease();

    /**
     * @param name a lock name
     * @return the name's keys and channel under the client's {@link LockConfig#keyPrefix() key prefix}
     */
    Keys keys(String name);

    /**
     * @param owner an owner id
     * @return the owner's hash field: {@code <clientId>:<ownerId>}
     */
    String field(long owner);

    /**
     * @param lock a lock hash
     * @return what identifies the lock hash on this Redis of this client, as
     *     {@link AcquireProtocol#identity()} answers it
     */
    Object lockId(String lock);

    /** @return {@code publish}, or {@code spublish} where sharded pub/sub carries unlock messages: what scripts publish with */
    String publishCommand();

    /** @return runs the kind's scripts on this Redis */
    ScriptRunner executor();

    /** @return where the client records the holds of its owners, for every kind */
    HoldRegistry holds();

    /** @return the client's clock, read for every deadline and elapsed time */
    Ticker ticker();

    /** @return the client's one timer */
    Timer timer();

    /**
     * Joins an unlock channel on the client's shared subscription; the future completes once
     * Redis confirmed the subscription, so that a try made after it cannot miss an unlock.
     *
     * @param channel the unlock channel
     * @param address the waiter's own name in messages that name one waiter; null if the lock
     *     kind sends unaddressed messages
     * @return wake-ups for one acquire attempt; close them when done
     */
    CompletableFuture<Wakeups> wakeups(String channel, @Nullable String address);

    /**
     * Joins an unlock channel only if it is already subscribed and confirmed, which costs no
     * round trip.
     *
     * @param channel the unlock channel
     * @param address as for {@link #wakeups}
     * @return wake-ups ready now, or null if the channel is not subscribed
     */
    @Nullable Wakeups wakeupsIfSubscribed(String channel, @Nullable String address);

    /**
     * Has the watchdog renew an owner's hold as a whole until cancelled or found gone, whatever
     * its levels: for kinds that manage a hold's lease themselves (RedLock, on each master).
     * Registering a hold already registered with {@code lease} keeps that registration; one
     * registered with another lease (an earlier hold of the owner) is renewed for {@code lease}
     * from now on, so that the earlier registration ends.
     *
     * @param lock the lock hash
     * @param owner the owner id
     * @param lease told how each renewal goes
     * @return the registration of {@code lease}
     */
    LeaseRegistration register(String lock, long owner, RenewedLease lease);

    /**
     * @param name the lock's name
     * @return the plain lock of that name on this Redis
     */
    PlainLock plainLock(String name);

    /**
     * @param name the lock's name, for messages
     * @param lock the lock hash, whose field {@code <clientId>:<ownerId>} counts an owner's levels
     * @param scripts the kind's acquire and release scripts on that hash
     * @return the kind's tries and releases, kept in step with the client's record and the watchdog
     */
    CountedHolds countedHolds(String name, String lock, HoldScripts scripts);

    /**
     * Sends a call that must take effect (a release, leaving a queue) at once, not after the
     * hold's earlier calls: if its answer is lost, or Redis refused it for a passing reason (a
     * failover), {@code again} settles it later, after the owner's calls on the lock that came before.
     *
     * @param lock the lock hash
     * @param owner the owner id
     * @param what names the call, for logs
     * @param call sends the call
     * @param again sends it again, idempotently
     * @param <T> the reply type
     * @return the call's reply, once a settlement it needs is registered
     */
    <T> CompletableFuture<T> sendOrSettleLater(String lock, long owner, String what, Supplier<CompletableFuture<T>> call,
                                               Supplier<CompletableFuture<?>> again);
}
