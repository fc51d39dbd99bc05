package io.latchkey.internal.watchdog;

import io.latchkey.LockEventListener;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.spi.Ticker;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One round of the watchdog: every renewed hold, all holds of one {@link Renewal kind} on one
 * Redis shard in one script call (in chunks of {@value #MAX_BATCH}), since a script may only
 * touch keys of one shard; then each hold is told how its renewal went, unless it left the
 * watchdog meanwhile. Thread-safe.
 */
final class RenewalRound {

    private static final Logger log = LoggerFactory.getLogger(RenewalRound.class);
    static final int MAX_BATCH = 500;

    private final Map<HoldKey, RenewedHold> holds;
    private final RenewalCall call;
    private final Ticker ticker;
    private final long leaseNanos;
    private final String leaseMillis;
    private final long retryNanos;
    private final LockEvents events;

    /**
     * @param holds the watchdog's holds, read at each round, from which a hold found gone is removed
     * @param call sends one batch
     * @param ticker the client's clock, which stamps each batch as it is sent
     * @param leaseNanos the lease each renewal resets
     * @param retryNanos when a failed batch is tried again, for the log
     * @param events told of each batch's round trip
     */
    RenewalRound(Map<HoldKey, RenewedHold> holds, RenewalCall call, Ticker ticker, long leaseNanos, long retryNanos,
                 LockEvents events) {
        this.holds = holds;
        this.call = call;
        this.ticker = ticker;
        this.leaseNanos = leaseNanos;
        this.leaseMillis = Long.toString(TimeUnit.NANOSECONDS.toMillis(leaseNanos));
        this.retryNanos = retryNanos;
        this.events = events;
    }

    /** @return completes with true if a batch of this round failed */
    CompletableFuture<Boolean> run() {
        Map<Shard, List<RenewedHold>> byShard = new LinkedHashMap<>();
        holds.values().forEach(hold -> {
            RedisExecutor executor = hold.id().executor();
            Shard shard = new Shard(executor, executor.shardOf(hold.id().key()), hold.renewal());
            byShard.computeIfAbsent(shard, any -> new ArrayList<>()).add(hold);
        });
        List<CompletableFuture<Boolean>> batches = new ArrayList<>();
        byShard.forEach((shard, entries) -> {
            for (int from = 0; from < entries.size(); from += MAX_BATCH) {
                batches.add(renew(shard.executor(), shard.renewal(), entries.subList(from, Math.min(entries.size(), from + MAX_BATCH))));
            }
        });
        return CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new))
                .handle((ok, failure) -> batches.stream().anyMatch(batch -> Boolean.FALSE.equals(batch.join())));
    }

    /** @return completes with false if the batch failed and should be retried soon */
    private CompletableFuture<Boolean> renew(RedisExecutor executor, Renewal renewal, List<RenewedHold> batch) {
        String[] keys = new String[batch.size() * renewal.keysPerHold()];
        String[] args = new String[batch.size() + 1];
        args[0] = leaseMillis;
        for (int i = 0; i < batch.size(); i++) {
            List<String> holdKeys = batch.get(i).keys();
            for (int k = 0; k < holdKeys.size(); k++) {
                keys[i * renewal.keysPerHold() + k] = holdKeys.get(k);
            }
            args[i + 1] = batch.get(i).field();
        }
        long sentAtNanos = ticker.read();
        return call.send(executor, renewal, keys, args).handle((renewed, failure) -> {
            if (events.enabled()) {
                events.renewed(new LockEventListener.Renewal(batch.size(), LockEvents.between(sentAtNanos, ticker.read()),
                        failure == null ? LockEventListener.RenewalOutcome.RENEWED : LockEventListener.RenewalOutcome.FAILED));
            }
            if (failure != null) {
                log.warn("Could not renew {} lease(s) on {}; retrying in {} ms: {}",
                        batch.size(), executor, TimeUnit.NANOSECONDS.toMillis(retryNanos), failure.getMessage());
                batch.forEach(hold -> {
                    if (hold.isActive()) {
                        hold.lease().renewalFailed();
                    }
                });
                return false;
            }
            // Only an entry still there is told: one cancelled meanwhile, or replaced by a later
            // hold of the same field, belongs to a hold that this answer is not about.
            for (int i = 0; i < batch.size(); i++) {
                RenewedHold hold = batch.get(i);
                if (((Long) renewed.get(i)) == 0L) {
                    if (holds.remove(hold.id(), hold)) {
                        hold.lease().foundGone();
                    }
                } else if (hold.isActive()) {
                    hold.lease().renewed(sentAtNanos, sentAtNanos + leaseNanos);
                }
            }
            return true;
        });
    }

    private record Shard(RedisExecutor executor, int shard, Renewal renewal) {
    }

    /** Sends one batch of renewals: the seam between the watchdog and Redis. */
    @FunctionalInterface
    interface RenewalCall {

        /** Runs the renewal script on the executor's Redis. */
        RenewalCall REDIS = (executor, renewal, keys, args) -> executor.eval(keys[0], renewal.script(), ScriptOutputType.MULTI,
                keys, args);

        /**
         * @param executor the Redis that holds the batch
         * @param renewal the script
         * @param keys the holds' keys in turn
         * @param args the lease in milliseconds, then each hold's field
         * @return per hold, 1 if renewed, 0 if found gone
         */
        CompletableFuture<List<Object>> send(RedisExecutor executor, Renewal renewal, String[] keys, String[] args);
    }
}
