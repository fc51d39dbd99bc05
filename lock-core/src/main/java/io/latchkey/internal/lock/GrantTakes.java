package io.latchkey.internal.lock;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.Failures;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes in Redis the holds that a kind's release granted and a message told of
 * ({@link HoldCalls#takeGranted}): the owner entered on the message, confirmed until the grant's
 * bound, and the take sets the owner's own lease in its place, which may be longer or shorter.
 * From the moment the take is sent the hold counts on no more than the owner's lease from then,
 * since Redis may run it at once; the take's answer, or if it is lost the answer of the call
 * sent again to settle it, is what the client believes of the lease from then on. A take is
 * never undone, since the owner holds the level already; one that Redis refuses for good loses
 * the hold. Thread-safe.
 */
final class GrantTakes {

    private static final Logger log = LoggerFactory.getLogger(GrantTakes.class);

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
     * Takes a granted hold with the owner's lease, after the owner's earlier calls on the lock.
     *
     * @param hold the hold entered on the grant's message
     * @param field the owner's field
     * @param lease the owner's lease
     * @param token the granted hold's token
     * @param grantUntilNanos by the client's ticker, a time before which Redis does not drop the grant
     */
    void take(Hold hold, String field, LeaseTerm lease, long token, long grantUntilNanos) {
        Take take = new Take(hold, context.ticker(), TimeUnit.MILLISECONDS.toNanos(lease.millis()), grantUntilNanos);
        HoldId id = context.hold(lock, hold.owner());
        UnsettledCalls unsettled = context.unsettled();
        String call = unsettled.nextCallId();
        String held = Long.toString(token);
        unsettled.afterOrSettleLater(id, "take of granted hold " + token + " by " + call, () -> {
            take.sending();
            return scripts.acquire(field, lease, call, held);
        }, () -> {
            // Sent again with the same id, it answers as the first time if that ran; either way
            // Redis set the owner's lease after the first send. Left unheard, a lease that Redis
            // extended would be given up (and ended there) at the grant's bound.
            take.sending();
            CompletableFuture<List<Object>> again = scripts.acquire(field, lease, call, held);
            again.thenAccept(take::answered);
            return again;
        }, CompletionException::new).whenComplete((reply, failure) -> {
            if (failure == null) {
                take.answered(reply);
                return;
            }
            log.debug("lock '{}': taking the hold granted to {} failed: {}", name, field, failure.toString());
            if (!Failures.isOutcomeUnknown(failure) && !Failures.isPassingRefusal(failure)) {
                // Not run, and not to be sent again: the grant runs out at its bound, and the owner's
                // lease was never set. Lost now, the hold is ended in Redis if Redis lets it.
                hold.lose("taking the hold its release granted was refused: " + Failures.describe(failure), true);
            }
        });
    }

    /** One take: when it was first sent, and what the hold counts on from then. */
    private static final class Take {
        private final Hold hold;
        private final Ticker ticker;
        private final long leaseNanos;
        private final long grantUntilNanos;
        /** Set by the first send, before any answer; later sends happen after earlier ones failed. */
        private volatile long firstSentNanos;
        private volatile boolean sent;

        Take(Hold hold, Ticker ticker, long leaseNanos, long grantUntilNanos) {
            this.hold = hold;
            this.ticker = ticker;
            this.leaseNanos = leaseNanos;
            this.grantUntilNanos = grantUntilNanos;
        }

        /**
         * Once Redis may run it, the take may set the owner's lease, shorter than the grant's
         * bound: the hold counts on no more than that until an answer says what Redis did.
         */
        void sending() {
            if (sent) {
                return;
            }
            firstSentNanos = ticker.read();
            sent = true;
            long taken = firstSentNanos + leaseNanos;
            hold.confirmAnew(taken - grantUntilNanos < 0 ? taken : grantUntilNanos);
        }

        /** A take's answer: the owner's lease from the first send, set anew in place of the grant's bound, or the grant gone. */
        void answered(List<Object> reply) {
            if ((Long) reply.get(0) == 1L) {
                hold.confirmAnew(firstSentNanos + leaseNanos);
            } else {
                hold.lose("taking the hold its release granted found it gone from Redis", false);
            }
        }
    }
}
