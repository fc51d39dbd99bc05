package io.latchkey.internal.watchdog;

import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.redis.Script;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog: renews every registered hold each third of the watchdog lease, all holds on one
 * Redis in one script call per round (in chunks of {@value #MAX_BATCH}); in a Cluster, one call
 * per hash slot, since a script may only touch keys of one slot.
 *
 * <p>A renewal only extends a hold that still exists for its owner, so a renewal racing an unlock
 * cannot bring the lock back; a hold found gone is dropped and reported as a lost lease. The
 * timer only schedules; Redis calls run asynchronously and the next round is scheduled when the
 * last one has answered, so rounds never pile up behind a slow Redis. Thread-safe.
 */
public final class LeaseRenewer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);
    private static final Script RENEW = Script.load(LeaseRenewer.class, "renew.lua");
    static final int MAX_BATCH = 500;

    private final Timer timer;
    private final Duration lease;
    private final long periodNanos;
    private final Map<HoldKey, RenewedHold> holds = new ConcurrentHashMap<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param timer the client's timer
     * @param lease the watchdog lease that each renewal resets
     */
    public LeaseRenewer(Timer timer, Duration lease) {
        this.timer = timer;
        this.lease = lease;
        this.periodNanos = lease.toNanos() / 3;
    }

    /**
     * Keeps renewing a hold until {@link #cancel} or until it is found gone. Registering a hold
     * that is already registered changes nothing.
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
        holds.putIfAbsent(new HoldKey(executor, key, field), new RenewedHold(key, field, listener));
        scheduleRound();
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

    /** @return how many holds are being renewed */
    public int size() {
        return holds.size();
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

    private void scheduleRound() {
        if (!closed && scheduled.compareAndSet(false, true)) {
            try {
                timer.newTimeout(timeout -> renewAll(), periodNanos, TimeUnit.NANOSECONDS);
            } catch (IllegalStateException timerStopped) {
                scheduled.set(false);
            }
        }
    }

    private void renewAll() {
        if (closed) {
            return;
        }
        // One script call may only touch keys of one shard: in a Cluster, one hash slot.
        Map<Shard, List<Map.Entry<HoldKey, RenewedHold>>> byShard = new LinkedHashMap<>();
        holds.entrySet().forEach(entry -> {
            RedisExecutor executor = entry.getKey().executor();
            Shard shard = new Shard(executor, executor.shardOf(entry.getKey().key()));
            byShard.computeIfAbsent(shard, any -> new ArrayList<>()).add(Map.entry(entry.getKey(), entry.getValue()));
        });
        List<CompletableFuture<Void>> rounds = new ArrayList<>();
        byShard.forEach((shard, entries) -> {
            for (int from = 0; from < entries.size(); from += MAX_BATCH) {
                rounds.add(renew(shard.executor(), entries.subList(from, Math.min(entries.size(), from + MAX_BATCH))));
            }
        });
        CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new)).whenComplete((ok, failure) -> {
            scheduled.set(false);
            if (!holds.isEmpty()) {
                scheduleRound();
            }
        });
    }

    private CompletableFuture<Void> renew(RedisExecutor executor, List<Map.Entry<HoldKey, RenewedHold>> batch) {
        String[] keys = new String[batch.size()];
        String[] args = new String[batch.size() + 1];
        args[0] = Long.toString(lease.toMillis());
        for (int i = 0; i < batch.size(); i++) {
            keys[i] = batch.get(i).getValue().key();
            args[i + 1] = batch.get(i).getValue().field();
        }
        return executor.<List<Object>>eval(keys[0], RENEW, ScriptOutputType.MULTI, keys, args).handle((renewed, failure) -> {
            if (failure != null) {
                log.warn("Could not renew {} lease(s) on {}; retrying in {} ms: {}",
                        batch.size(), executor, TimeUnit.NANOSECONDS.toMillis(periodNanos), failure.getMessage());
                return null;
            }
            for (int i = 0; i < batch.size(); i++) {
                Map.Entry<HoldKey, RenewedHold> hold = batch.get(i);
                if (((Long) renewed.get(i)) == 0L && holds.remove(hold.getKey(), hold.getValue())) {
                    hold.getValue().listener().leaseLost(hold.getValue().key(), hold.getValue().field());
                }
            }
            return null;
        });
    }

    private record HoldKey(RedisExecutor executor, String key, String field) {
    }

    private record Shard(RedisExecutor executor, int shard) {
    }

    /** Compared by identity: a hold registered again after an unlock is a new hold. */
    private static final class RenewedHold {
        private final String key;
        private final String field;
        private final LeaseListener listener;

        RenewedHold(String key, String field, LeaseListener listener) {
            this.key = key;
            this.field = field;
            this.listener = listener;
        }

        String key() {
            return key;
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

        /** Logs at WARN, the default until a public listener API exists. */
        LeaseListener LOG = (key, field) ->
                log.warn("Lease of lock '{}' held by {} was lost: the hold is gone from Redis, so another owner may now hold the lock", key, field);

        /**
         * @param key the lock hash
         * @param field the owner's field
         */
        void leaseLost(String key, String field);
    }
}
