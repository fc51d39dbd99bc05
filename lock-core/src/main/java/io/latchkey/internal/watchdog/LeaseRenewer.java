package io.latchkey.internal.watchdog;

import io.latchkey.LockEventListener;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.redis.Script;
import io.latchkey.internal.time.Ticker;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog: renews every registered hold each third of the watchdog lease, all holds of one
 * {@link Renewal kind} on one Redis in one script call per round (in chunks of
 * {@value #MAX_BATCH}); in a Cluster, one call per hash slot, since a script may only touch keys
 * of one slot.
 *
 * <p>A renewal only extends a hold that still exists for its owner, so a renewal racing an unlock
 * cannot bring the lock back; a hold found gone is dropped and reported as a lost lease. The
 * timer only schedules; Redis calls run asynchronously and the next round is scheduled when the
 * last one has answered, so rounds never pile up behind a slow Redis. Thread-safe.
 */
public final class LeaseRenewer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);
    /** How the holds of a lock hash ({@code <owner field> -> hold count}) are renewed. */
    public static final Renewal LOCK_HASH = new Renewal(Script.load(LeaseRenewer.class, "renew.lua"), 1);
    static final int MAX_BATCH = 500;

    private final Timer timer;
    private final Ticker ticker;
    private final Duration lease;
    private final long periodNanos;
    private final LockEvents events;
    private final Map<HoldKey, RenewedHold> holds = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param timer the client's timer
     * @param ticker the client's clock, which stamps each renewal as it is sent
     * @param lease the watchdog lease that each renewal resets
     */
    public LeaseRenewer(Timer timer, Ticker ticker, Duration lease) {
        this(timer, ticker, lease, LockEvents.NONE);
    }

    /**
     * @param timer the client's timer
     * @param ticker the client's clock, which stamps each renewal as it is sent
     * @param lease the watchdog lease that each renewal resets
     * @param events told of each renewal round trip
     */
    public LeaseRenewer(Timer timer, Ticker ticker, Duration lease, LockEvents events) {
        this.timer = timer;
        this.ticker = ticker;
        this.lease = lease;
        this.periodNanos = lease.toNanos() / 3;
        this.events = events;
    }

    /**
     * Keeps renewing a hold as a whole until {@link #cancel} or until it is found gone, whatever
     * its levels: for lock kinds that manage a hold's lease themselves (RedLock, on each master).
     * Registering a hold that is already registered changes nothing.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @param listener told when the hold is found gone
     */
    public void register(RedisExecutor executor, String key, String field, LeaseListener listener) {
        if (closed) {
            return;
        }
        holds.compute(new HoldKey(executor, key, field), (id, hold) -> {
            if (hold == null) {
                return RenewedHold.pinned(LOCK_HASH, List.of(key), field, listener);
            }
            hold.pinned = true;
            return hold;
        });
        scheduleRound(periodNanos);
    }

    /**
     * Records one granted level of a hold (the first acquisition or a re-entry). The watchdog
     * renews a hold exactly while one of its levels was taken with the watchdog lease: a re-entry
     * with a fixed lease neither starts renewal nor stops it, and a fixed lease under no watchdog
     * level is never renewed.
     *
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @param renewed true if this level took the watchdog lease
     * @param holdCount the owner's hold count after the grant, as Redis counted it: 1 for a new hold
     * @param listener told when the hold is found gone
     */
    public void granted(RedisExecutor executor, String key, String field, boolean renewed, long holdCount,
                        LeaseListener listener) {
        granted(executor, LOCK_HASH, List.of(key), field, renewed, holdCount, listener);
    }

    /**
     * As {@link #granted(RedisExecutor, String, String, boolean, long, LeaseListener)}, for a hold
     * that another script renews: a read hold, a semaphore permit.
     *
     * @param executor the Redis that holds it
     * @param renewal the script that renews such holds
     * @param keys the hold's keys, as many as {@code renewal} takes per hold, in one hash slot;
     *     the first identifies the hold with {@code field}
     * @param field the owner's field, or the permit's id
     * @param renewed true if this level took the watchdog lease
     * @param holdCount the hold count after the grant: 1 for a new hold
     * @param listener told when the hold is found gone
     */
    public void granted(RedisExecutor executor, Renewal renewal, List<String> keys, String field, boolean renewed,
                        long holdCount, LeaseListener listener) {
        if (keys.size() != renewal.keysPerHold()) {
            throw new IllegalArgumentException(renewal + " takes " + renewal.keysPerHold() + " key(s) per hold, not " + keys);
        }
        String key = keys.get(0);
        if (closed) {
            return;
        }
        RenewedHold tracked = holds.compute(new HoldKey(executor, key, field), (id, hold) -> {
            if (hold != null && holdCount > 1) {
                hold.push(renewed);
                return hold;
            }
            if (!renewed) {
                // A new hold with a fixed lease, or a re-entry of one that has no watchdog level.
                return null;
            }
            RenewedHold fresh = new RenewedHold(renewal, keys, field, listener);
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
     * @param executor the Redis that holds it
     * @param key the lock hash
     * @param field the owner's field
     * @return the listener the hold was registered with, or null if it is not being renewed
     */
    public @Nullable LeaseListener listener(RedisExecutor executor, String key, String field) {
        RenewedHold hold = holds.get(new HoldKey(executor, key, field));
        return hold == null ? null : hold.listener();
    }

    /** @return the lease each renewal resets */
    public Duration lease() {
        return lease;
    }

    /** Stops renewing everything; idempotent. */
    @Override
    public void close() {
        closed = true;
        holds.clear();
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
                    round();
                }
            }, 0, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            // The client is closing: nothing is renewed any more.
        }
    }

    private void renewAll() {
        if (closed) {
            return;
        }
        round().whenComplete((anyFailed, failure) -> {
            scheduled.set(false);
            if (!holds.isEmpty()) {
                // After a failed round two thirds of the lease remain: retry well within them.
                scheduleRound(Boolean.TRUE.equals(anyFailed) ? periodNanos / 4 : periodNanos);
            }
        });
    }

    /** @return completes with true if a batch of this round failed */
    private CompletableFuture<Boolean> round() {
        // One script call may only touch keys of one shard: in a Cluster, one hash slot.
        Map<Shard, List<Map.Entry<HoldKey, RenewedHold>>> byShard = new LinkedHashMap<>();
        holds.entrySet().forEach(entry -> {
            RedisExecutor executor = entry.getKey().executor();
            Shard shard = new Shard(executor, executor.shardOf(entry.getKey().key()), entry.getValue().renewal());
            byShard.computeIfAbsent(shard, any -> new ArrayList<>()).add(Map.entry(entry.getKey(), entry.getValue()));
        });
        List<CompletableFuture<Boolean>> rounds = new ArrayList<>();
        byShard.forEach((shard, entries) -> {
            for (int from = 0; from < entries.size(); from += MAX_BATCH) {
                rounds.add(renew(shard.executor(), shard.renewal(), entries.subList(from, Math.min(entries.size(), from + MAX_BATCH))));
            }
        });
        return CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new))
                .handle((ok, failure) -> rounds.stream().anyMatch(round -> Boolean.FALSE.equals(round.join())));
    }

    /** @return completes with false if the round failed and should be retried soon */
    private CompletableFuture<Boolean> renew(RedisExecutor executor, Renewal renewal,
                                             List<Map.Entry<HoldKey, RenewedHold>> batch) {
        String[] keys = new String[batch.size() * renewal.keysPerHold()];
        String[] args = new String[batch.size() + 1];
        args[0] = Long.toString(lease.toMillis());
        for (int i = 0; i < batch.size(); i++) {
            List<String> holdKeys = batch.get(i).getValue().keys();
            for (int k = 0; k < holdKeys.size(); k++) {
                keys[i * renewal.keysPerHold() + k] = holdKeys.get(k);
            }
            args[i + 1] = batch.get(i).getValue().field();
        }
        long sentAtNanos = ticker.read();
        return executor.<List<Object>>eval(keys[0], renewal.script(), ScriptOutputType.MULTI, keys, args).handle((renewed, failure) -> {
            if (events.enabled()) {
                events.renewed(new LockEventListener.Renewal(batch.size(), LockEvents.between(sentAtNanos, ticker.read()),
                        failure == null ? LockEventListener.RenewalOutcome.RENEWED : LockEventListener.RenewalOutcome.FAILED));
            }
            if (failure != null) {
                log.warn("Could not renew {} lease(s) on {}; retrying in {} ms: {}",
                        batch.size(), executor, TimeUnit.NANOSECONDS.toMillis(periodNanos / 4), failure.getMessage());
                batch.forEach(hold -> {
                    if (holds.get(hold.getKey()) == hold.getValue()) {
                        hold.getValue().listener().renewalFailed(hold.getValue().key(), hold.getValue().field());
                    }
                });
                return false;
            }
            for (int i = 0; i < batch.size(); i++) {
                Map.Entry<HoldKey, RenewedHold> hold = batch.get(i);
                RenewedHold renewedHold = hold.getValue();
                if (((Long) renewed.get(i)) == 0L) {
                    if (holds.remove(hold.getKey(), renewedHold)) {
                        renewedHold.listener().leaseLost(renewedHold.key(), renewedHold.field());
                    }
                } else if (holds.get(hold.getKey()) == renewedHold) {
                    renewedHold.listener().leaseRenewed(renewedHold.key(), renewedHold.field(), sentAtNanos);
                }
            }
            return true;
        });
    }

    private record HoldKey(RedisExecutor executor, String key, String field) {
    }

    private record Shard(RedisExecutor executor, int shard, Renewal renewal) {
    }

    /**
     * A renewal script and how many keys it takes per hold. Every such script takes
     * {@code KEYS} = each hold's keys in turn, {@code ARGV[1]} = the lease in milliseconds and
     * {@code ARGV[i+1]} = the field of hold {@code i}, and returns per hold 1 if the hold was
     * still there and now runs at least the lease from now, else 0 with nothing changed, as
     * {@code renew.lua} does for lock hashes. Compared by identity: one constant per kind of hold.
     *
     * @param script the script
     * @param keysPerHold how many keys each hold passes, the first being the one it is known by
     */
    public record Renewal(Script script, int keysPerHold) {

        /**
         * @param script the script
         * @param keysPerHold at least 1
         */
        public Renewal {
            if (keysPerHold < 1) {
                throw new IllegalArgumentException("keysPerHold must be at least 1: " + keysPerHold);
            }
        }

        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /**
     * A hold's levels, innermost last, each marked with whether it took the watchdog lease.
     * Compared by identity: a hold granted again after its release is a new hold. Mutated only
     * inside the map's compute functions, which serialize per hold.
     */
    private static final class RenewedHold {
        private final Renewal renewal;
        private final List<String> keys;
        private final String field;
        private final LeaseListener listener;
        private final Deque<Boolean> levels = new ArrayDeque<>();
        private int watchdogLevels;
        /** Renewed as a whole until cancelled, whatever its levels. */
        private boolean pinned;

        RenewedHold(Renewal renewal, List<String> keys, String field, LeaseListener listener) {
            this.renewal = renewal;
            this.keys = List.copyOf(keys);
            this.field = field;
            this.listener = listener;
        }

        static RenewedHold pinned(Renewal renewal, List<String> keys, String field, LeaseListener listener) {
            RenewedHold hold = new RenewedHold(renewal, keys, field, listener);
            hold.pinned = true;
            return hold;
        }

        void push(boolean renewed) {
            levels.addLast(renewed);
            if (renewed) {
                watchdogLevels++;
            }
        }

        void pop() {
            Boolean renewed = levels.pollLast();
            if (Boolean.TRUE.equals(renewed)) {
                watchdogLevels--;
            }
        }

        boolean renews() {
            return pinned || watchdogLevels > 0;
        }

        Renewal renewal() {
            return renewal;
        }

        List<String> keys() {
            return keys;
        }

        String key() {
            return keys.get(0);
        }

        String field() {
            return field;
        }

        LeaseListener listener() {
            return listener;
        }
    }

    /** Told when the watchdog finds a hold gone: expired, force-unlocked, or lost in a failover. */
    @FunctionalInterface
    public interface LeaseListener {

        /**
         * @param key the lock hash
         * @param field the owner's field
         */
        void leaseLost(String key, String field);

        /**
         * Told after each renewal that found the hold and reset its lease; does nothing unless
         * overridden. Lock kinds that track leases of their own (RedLock counts the masters whose
         * lease still runs) use it; it must not block.
         *
         * @param key the lock hash
         * @param field the owner's field
         * @param sentAtNanos the client's {@link Ticker} just before the renewal was sent, so the
         *     new lease runs at least until {@code sentAtNanos} plus the lease
         */
        default void leaseRenewed(String key, String field, long sentAtNanos) {
        }

        /**
         * Told after a renewal that Redis did not answer or refused: the hold may be gone; does
         * nothing unless overridden. Must not block.
         *
         * @param key the lock hash
         * @param field the owner's field
         */
        default void renewalFailed(String key, String field) {
        }
    }
}
