package io.latchkey.internal.lock;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.Failures;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes in Redis the holds that a kind's release granted and a message told of
 * ({@link HoldCalls#takeGranted}): the take sets the owner's own lease in place of the grant's,
 * which may be longer or shorter. The grant's bound is a time Redis keeps the grant at least only
 * while no other call of the owner reaches it first (another attempt's try would take it with
 * that attempt's lease, that try's undo or an unlock would delete it), so the take is admitted at
 * once as the owner's next call, and only if the owner's last call on the lock was the try that
 * left it in line and nothing of the owner came since ({@link GrantCalls#afterOnlyQueuedTry});
 * else the owner tries instead. It is sent at once too, unless the grant ends no later than the
 * owner's watchdog lease would: then when due, unless the owner's release comes first and ends the
 * hold by its token instead (one script call for both), or first if any other call of the owner
 * comes. From the send on, the hold counts on no more than the owner's lease from then, since
 * Redis may run the take at once; the take's answer, or if it is lost the answer of the call sent
 * again to settle it, confirms that lease or loses the hold. A take is never undone, since the
 * owner holds the level already; one that Redis refuses for good loses the hold. Thread-safe.
 */
final class GrantTakes {

    private static final Logger log = LoggerFactory.getLogger(GrantTakes.class);
    /** The reply of a take that was never sent, as a release ended the hold instead: compared by identity. */
    private static final List<Object> NOT_SENT = Collections.unmodifiableList(new ArrayList<>());

    private final String name;
    private final String lock;
    private final LockContext context;
    private final HoldScripts scripts;

    /**
     * @param name the lock's name, for messages
     * @param lock the lock hash
     * @param context the client's shared machinery
     * @param scripts the kind's scripts, whose acquire takes a granted hold by its token
     */
    GrantTakes(String name, String lock, LockContext context, HoldScripts scripts) {
        this.name = name;
        this.lock = lock;
        this.context = context;
        this.scripts = scripts;
    }

    /**
     * Sends the take of a granted hold with the owner's lease, if the owner's last call on the
     * lock was the try the grant was made on, which left it in line, and nothing of the owner came
     * since.
     *
     * @param owner the owner id
     * @param field the owner's field
     * @param lease the owner's lease
     * @param token the granted hold's token
     * @param secret the secret of the try the grant was made on
     * @param grantUntilNanos by the client's ticker, a time before which Redis does not drop the grant
     * @return the take under way, or null if another call of the owner kept it from being sent
     */
    @Nullable Taking take(long owner, String field, LeaseTerm lease, long token, String secret, long grantUntilNanos) {
        HoldId id = context.hold(lock, owner);
        UnsettledCalls unsettled = context.unsettled();
        String call = unsettled.nextCallId();
        String held = Long.toString(token);
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(lease.millis());
        Taking taking = new Taking(context.ticker(), leaseNanos, grantUntilNanos);
        Supplier<CompletableFuture<List<Object>>> send = () -> unsettled.sendOrSettleLater(id,
                "take of granted hold " + token + " by " + call, () -> {
                    taking.sending();
                    return scripts.acquire(field, lease, call, held);
                }, () -> {
                    // Sent again with the same id, it answers as the first time if that ran; either
                    // way Redis set the owner's lease after the first send. Left unheard, a lease
                    // that Redis extended would be given up (and ended there) at the grant's bound.
                    CompletableFuture<List<Object>> again = scripts.acquire(field, lease, call, held);
                    again.whenComplete((answer, failure) -> taking.settled(answer, failure));
                    return again;
                });
        long now = context.ticker().read();
        long sendInNanos = (grantUntilNanos - now - 2 * context.config().commandTimeout().toNanos()) / 2;
        @Nullable CompletableFuture<List<Object>> reply;
        if (!lease.renewed() || grantUntilNanos - now - leaseNanos > 0 || sendInNanos <= 0) {
            reply = unsettled.grants().afterOnlyQueuedTry(id, secret, token, send);
        } else {
            // The grant ends no later than the watchdog's lease would, so the take can wait: a
            // release before it is due ends the hold by its token instead, one script call for both
            // (a short critical section's), and Redis keeps the lock no longer than the lease
            // meanwhile. Not for a fixed lease, which counts from the acquisition: a later take
            // would set it later. Due halfway to the grant's bound less two command timeouts, so
            // that the take and, if its answer is lost, the call that settles it each have a
            // command timeout before the bound; sent at once if another call of the owner comes.
            CompletableFuture<List<Object>> deferredReply = new CompletableFuture<>();
            DeferredCall deferred = new DeferredCall(() -> relay(send, deferredReply), () -> deferredReply.complete(NOT_SENT),
                    deferredReply);
            reply = unsettled.grants().afterOnlyQueuedTry(id, secret, token, () -> deferredReply, deferred);
            if (reply != null) {
                schedule(deferred, sendInNanos);
            }
        }
        if (reply == null) {
            return null;
        }
        reply.whenComplete((answer, failure) -> {
            if (answer == NOT_SENT) {
                return; // the release ended the hold instead
            }
            if (failure != null) {
                log.debug("lock '{}': taking the hold granted to {} failed: {}", name, field, failure.toString());
            }
            taking.settled(answer, failure);
        });
        return taking;
    }

    private void schedule(DeferredCall deferred, long delayNanos) {
        try {
            deferred.dueBy(context.timer().newTimeout(timeout -> deferred.sendNow(), delayNanos, TimeUnit.NANOSECONDS));
        } catch (IllegalStateException timerStopped) {
            deferred.sendNow(); // the client is closing: fails at once, as any call then does
        }
    }

    private static <T> void relay(Supplier<CompletableFuture<T>> send, CompletableFuture<T> to) {
        CompletableFuture<T> from;
        try {
            from = send.get();
        } catch (RuntimeException e) {
            from = CompletableFuture.failedFuture(e);
        }
        from.whenComplete((answer, failure) -> {
            if (failure == null) {
                to.complete(answer);
            } else {
                to.completeExceptionally(failure);
            }
        });
    }

    /** One take: when it was first sent, and the hold it decides once the acquire loop records it. */
    static final class Taking {
        private final Ticker ticker;
        private final long leaseNanos;
        private final long grantUntilNanos;
        /** The recorded hold; null if the acquire loop refused the level (the owner's hold was given up). */
        private final CompletableFuture<@Nullable Hold> hold = new CompletableFuture<>();
        private volatile long firstSentNanos;
        private volatile boolean sent;

        private Taking(Ticker ticker, long leaseNanos, long grantUntilNanos) {
            this.ticker = ticker;
            this.leaseNanos = leaseNanos;
            this.grantUntilNanos = grantUntilNanos;
        }

        private void sending() {
            firstSentNanos = ticker.read();
            sent = true;
        }

        /**
         * @return what the hold counts on until the take's answer: the grant's bound, cut to the
         *     send plus the owner's lease, which Redis may have set at once
         */
        long confirmedUntilNanos() {
            long taken = firstSentNanos + leaseNanos;
            return sent && taken - grantUntilNanos < 0 ? taken : grantUntilNanos;
        }

        /** @param recorded the hold the level was recorded in */
        void attach(Hold recorded) {
            hold.complete(recorded);
        }

        /** The acquire loop refused the level: the owner's hold was given up, and ends with it. */
        void detach() {
            hold.complete(null);
        }

        /**
         * What a send of the take came to: an answer, or an error reply that is not a passing one
         * (not to be sent again, the first send or the one that settles it); anything else is
         * sent again, or (as the client closes) bounded by the grant.
         */
        private void settled(@Nullable List<Object> answer, @Nullable Throwable failure) {
            if (failure == null) {
                answered(Objects.requireNonNull(answer));
            } else if (Failures.wasRefused(failure) && !Failures.isPassingRefusal(failure)) {
                refused(failure);
            }
        }

        /**
         * A take's answer: the owner's lease from the first send, or the grant gone. Renewals
         * never shorten a lease (one may have renewed the grant while its take waited), so this
         * confirms as they do, never taking back a later renewal.
         */
        private void answered(List<Object> reply) {
            boolean taken = (Long) reply.get(0) == 1L;
            hold.thenAccept(recorded -> {
                if (recorded == null) {
                    return;
                }
                if (taken) {
                    recorded.confirm(firstSentNanos + leaseNanos);
                } else {
                    recorded.lose("taking the hold its release granted found it gone from Redis", false);
                }
            });
        }

        /**
         * Not run, and not to be sent again: the grant runs out at its bound, and the owner's lease
         * was never set. Lost now, the hold is ended in Redis if Redis lets it.
         */
        private void refused(Throwable failure) {
            hold.thenAccept(recorded -> {
                if (recorded != null) {
                    recorded.lose("taking the hold its release granted was refused: " + Failures.describe(Failures.unwrap(failure)), true);
                }
            });
        }
    }
}
