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
 * The watchdog: renews every registered hold each third of the watchdog lease, in batches
 * ({@link RenewalRound}), and tells each hold's {@link RenewedLease} how its renewal went.
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
     * Keeps renewing a hold as a whole until cancelled or until it is found gone, whatever its
     * levels: for lock kinds that manage a hold's lease themselves (RedLock, on each master).
     * Registering a hold that is already registered only pins it: it keeps its lease.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @param lease told how each renewal goes
     * @return the registration of {@code lease}
     */
    public Registration register(RedisExecutor executor, String key, String field, RenewedLease lease) {
        HoldKey id = new HoldKey(executor, key, field);
        if (!closed) {
            holds.compute(id, (any, hold) -> {
                if (hold == null) {
                    return RenewedHold.pinned(Renewal.LOCK_HASH, List.of(key), field, lease);
                }
                hold.pin();
                return hold;
            });
            scheduleRound(periodNanos);
        }
        return new Registration(id, lease);
    }

    /**
     * Records one granted level of a hold of a lock hash (the first acquisition or a re-entry),
     * renewed by {@link Renewal#LOCK_HASH}; as {@link #granted(RedisExecutor, Renewal, List, String, boolean, long, RenewedLease)}.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @param renewed true if this level took the watchdog lease
     * @param holdCount the owner's hold count after the grant, as Redis counted it: 1 for a new hold
     * @param lease told how each renewal goes
     */
    public void granted(RedisExecutor executor, String key, String field, boolean renewed, long holdCount, RenewedLease lease) {
        granted(executor, Renewal.LOCK_HASH, List.of(key), field, renewed, holdCount, lease);
    }

    /**
     * Records one granted level of a hold (the first acquisition or a re-entry). The watchdog
     * renews a hold exactly while one of its levels was taken with the watchdog lease: a re-entry
     * with a fixed lease neither starts renewal nor stops it, and a fixed lease under no watchdog
     * level is never renewed. A re-entry keeps the lease the hold was first renewed with.
     *
     * @param executor the Redis that holds it
     * @param renewal the script that renews such holds
     * @param keys the hold's keys, as many as {@code renewal} takes per hold, in one hash slot;
     *     the first identifies the hold with {@code field}
     * @param field the owner's field, or the permit's id
     * @param renewed true if this level took the watchdog lease
     * @param holdCount the hold count after the grant: 1 for a new hold
     * @param lease told how each renewal goes
     */
    public void granted(RedisExecutor executor, Renewal renewal, List<String> keys, String field, boolean renewed,
                        long holdCount, RenewedLease lease) {
        if (keys.size() != renewal.keysPerHold()) {
            throw new IllegalArgumentException(renewal + " takes " + renewal.keysPerHold() + " key(s) per hold, not " + keys);
        }
        if (closed) {
            return;
        }
        RenewedHold tracked = holds.compute(new HoldKey(executor, keys.get(0), field), (id, hold) -> {
            if (hold != null && holdCount > 1) {
                hold.push(renewed);
                return hold;
            }
            if (!renewed) {
                // A new hold with a fixed lease, or a re-entry of one that has no watchdog level.
                return null;
            }
            RenewedHold fresh = new RenewedHold(renewal, keys, field, lease);
            for (long level = 1; level < holdCount; level++) {
                fresh.push(false);
            }
            fresh.push(true);
            return fresh;
        });
        if (tracked != null) {
            scheduleRound(periodNanos);
        }
    }

    /**
     * Called as the owner asks to release one level, before Redis answers: the level is gone for
     * the watchdog from this moment, so that a release whose answer is lost never leaves its
     * hold renewed.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     */
    public void releasing(RedisExecutor executor, String key, String field) {
        holds.computeIfPresent(new HoldKey(executor, key, field), (id, hold) -> {
            hold.pop();
            return hold.renews() ? hold : null;
        });
    }

    /**
     * Stops renewing a hold; a renewal already on its way finds the hold gone and does nothing.
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

    /** One {@link #register registration} of a hold. */
    public final class Registration implements LeaseRegistration {
        private final HoldKey id;
        private final RenewedLease lease;

        private Registration(HoldKey id, RenewedLease lease) {
            this.id = id;
            this.lease = lease;
        }

        @Override
        public boolean isActive() {
            RenewedHold hold = holds.get(id);
            return hold != null && hold.lease() == lease;
        }

        @Override
        public void cancel() {
            holds.computeIfPresent(id, (any, hold) -> hold.lease() == lease ? null : hold);
        }
    }
}
