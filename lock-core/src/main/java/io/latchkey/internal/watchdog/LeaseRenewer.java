package io.latchkey.internal.watchdog;

import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The watchdog: renews every hold it was asked to renew each third of the watchdog lease, in
 * batches ({@link RenewalRound}), and tells each hold's {@link RenewedLease} how its renewal went:
 * for most holds the client's record of the hold itself, which also decides when its renewal stops.
 *
 * <p>A renewal only extends a hold that still exists for its owner, so a renewal racing an unlock
 * cannot bring the lock back; a hold found gone is dropped and reported. The timer only
 * schedules; Redis calls run asynchronously and the next round is scheduled when the last one
 * has answered, so rounds never pile up behind a slow Redis. Thread-safe.
 */
public final class LeaseRenewer implements AutoCloseable {

    private final Timer timer;
    private final long periodNanos;
    private final Map<HoldKey, RenewedHold> holds = new ConcurrentHashMap<>();
    private final RenewalRound round;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * A watchdog that tells no events.
     *
     * @param timer the client's timer
     * @param ticker the client's clock, which stamps each renewal as it is sent
     * @param lease the watchdog lease that each renewal resets
     */
    public LeaseRenewer(Timer timer, Ticker ticker, Duration lease) {
        this(timer, ticker, lease, LockEvents.NONE);
    }

    /**
     * A watchdog on Redis.
     *
     * @param timer the client's timer
     * @param ticker the client's clock, which stamps each renewal as it is sent
     * @param lease the watchdog lease that each renewal resets
     * @param events told of each renewal round trip
     */
    public LeaseRenewer(Timer timer, Ticker ticker, Duration lease, LockEvents events) {
        this(timer, ticker, lease, events, RenewalRound.RenewalCall.REDIS);
    }

    LeaseRenewer(Timer timer, Ticker ticker, Duration lease, LockEvents events, RenewalRound.RenewalCall call) {
        this.timer = timer;
        this.periodNanos = lease.toNanos() / 3;
        this.round = new RenewalRound(holds, call, ticker, lease.toNanos(), periodNanos / 4, events);
    }

    /**
     * Renews a hold of a lock hash with {@link Renewal#LOCK_HASH}; as
     * {@link #renew(RedisExecutor, Renewal, List, String, RenewedLease)}.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @param lease told how each renewal goes
     * @return the renewal, active until cancelled or found gone
     */
    public LeaseRegistration renew(RedisExecutor executor, String key, String field, RenewedLease lease) {
        return renew(executor, Renewal.LOCK_HASH, List.of(key), field, lease);
    }

    /**
     * Renews a hold until its registration or {@link #cancel} stops it, or a renewal finds it
     * gone. Whoever starts a renewal decides when it ends: the watchdog counts no levels (a
     * {@code Hold} stops its own renewal with its last watchdog level). A hold renewed already
     * for {@code lease} keeps its renewal; one renewed for another lease (an earlier hold of the
     * same field) is renewed for this one from now on, so that no answer about it reaches the
     * earlier lease.
     *
     * @param executor the Redis that holds it
     * @param renewal the script that renews such holds
     * @param keys the hold's keys, as many as {@code renewal} takes per hold, in one hash slot;
     *     the first identifies the hold with {@code field}
     * @param field the owner's field, or the permit's id
     * @param lease told how each renewal goes
     * @return the renewal, active until cancelled or found gone; never active once closed
     */
    public LeaseRegistration renew(RedisExecutor executor, Renewal renewal, List<String> keys, String field,
                                   RenewedLease lease) {
        if (keys.size() != renewal.keysPerHold()) {
            throw new IllegalArgumentException(renewal + " takes " + renewal.keysPerHold() + " key(s) per hold, not " + keys);
        }
        HoldKey id = new HoldKey(executor, keys.get(0), field);
        if (closed) {
            return new RenewedHold(holds, id, renewal, keys, lease);
        }
        RenewedHold renewed = holds.compute(id, (any, hold) -> hold != null && hold.lease() == lease ? hold
                : new RenewedHold(holds, id, renewal, keys, lease));
        scheduleRound(periodNanos);
        return renewed;
    }

    /**
     * Stops renewing a hold, whoever started it; a renewal already on its way finds the hold gone
     * and does nothing.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     */
    public void cancel(RedisExecutor executor, String key, String field) {
        holds.remove(new HoldKey(executor, key, field));
    }

    /**
     * Stops renewing a hold if it is still renewed for {@code lease}: a later grant of the same
     * field, told through another lease, goes on being renewed.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @param lease the lease whose renewals stop
     */
    public void cancel(RedisExecutor executor, String key, String field, RenewedLease lease) {
        holds.computeIfPresent(new HoldKey(executor, key, field), (id, hold) -> hold.lease() == lease ? null : hold);
    }

    /** Stops renewing everything; idempotent. */
    @Override
    public void close() {
        closed = true;
        holds.clear();
    }

    /**
     * Renews every hold at once, in one round beside the periodic ones, which it leaves as they
     * are: for a connection that came back, perhaps to a Redis that lost its data, so that a hold
     * found gone is reported now rather than at the next periodic round. Only schedules (on the
     * client's timer); never blocks, so it may be called from an event-loop thread. Does nothing
     * while no hold is renewed.
     */
    public void renewNow() {
        if (closed || holds.isEmpty()) {
            return;
        }
        try {
            timer.newTimeout(timeout -> {
                if (!closed) {
                    round.run();
                }
            }, 0, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            // The client is closing: nothing is renewed any more.
        }
    }

    private void scheduleRound(long delayNanos) {
        if (!closed && scheduled.compareAndSet(false, true)) {
            try {
                timer.newTimeout(timeout -> renewAll(), delayNanos, TimeUnit.NANOSECONDS);
            } catch (IllegalStateException timerStopped) {
                scheduled.set(false);
            }
        }
    }

    private void renewAll() {
        if (closed) {
            return;
        }
        round.run().whenComplete((anyFailed, failure) -> {
            scheduled.set(false);
            if (!holds.isEmpty()) {
                // After a failed round two thirds of the lease remain: retry well within them.
                scheduleRound(Boolean.TRUE.equals(anyFailed) ? periodNanos / 4 : periodNanos);
            }
        });
    }
}
