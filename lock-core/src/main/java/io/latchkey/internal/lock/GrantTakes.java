package io.latchkey.internal.lock;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.Failures;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes in Redis the holds that a kind's release granted and a message told of
 * ({@link HoldCalls#takeGranted}): the owner entered on the message, confirmed until the grant's
 * bound, and the take sets the owner's own lease in its place, which may be longer or shorter.
 * The take's answer, or if it is lost the answer of the call sent again to settle it, is what the
 * client believes of the lease from then on; a take is never undone, since the owner holds the
 * level already. Thread-safe.
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
        HoldId id = context.hold(lock, hold.owner());
        UnsettledCalls unsettled = context.unsettled();
        String call = unsettled.nextCallId();
        String held = Long.toString(token);
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(lease.millis());
        long[] sentAtNanos = new long[1];
        unsettled.after(id, () -> {
            sentAtNanos[0] = context.ticker().read();
            return unsettled.sendOrSettleLater(id, "take of granted hold " + token + " by " + call,
                    () -> scripts.acquire(field, lease, call, held), () -> {
                        // Sent again with the same id, it answers as the first time if that ran; either
                        // way Redis set the owner's lease after the first send. Left unheard, a lease
                        // that Redis extended would be given up (and ended there) at the grant's bound.
                        CompletableFuture<List<Object>> again = scripts.acquire(field, lease, call, held);
                        again.thenAccept(reply -> taken(hold, reply, sentAtNanos[0] + leaseNanos));
                        return again;
                    });
        }).whenComplete((reply, failure) -> {
            if (failure == null) {
                taken(hold, reply, sentAtNanos[0] + leaseNanos);
                return;
            }
            log.debug("lock '{}': taking the hold granted to {} failed: {}", name, field, failure.toString());
            if (Failures.mayHaveRun(failure)) {
                // It may have set the owner's lease, shorter than the grant's bound: count on that
                // alone, never beyond the bound. The answer of the call sent again decides.
                long taken = sentAtNanos[0] + leaseNanos;
                hold.confirmAnew(taken - grantUntilNanos < 0 ? taken : grantUntilNanos);
            }
        });
    }

    /**
     * A take's answer: the owner's lease, set anew in place of the grant's bound, or the grant gone.
     *
     * @param untilNanos the first send of the take plus the owner's lease
     */
    private static void taken(Hold hold, List<Object> reply, long untilNanos) {
        if ((Long) reply.get(0) == 1L) {
            hold.confirmAnew(untilNanos);
        } else {
            hold.lose("taking the hold its release granted found it gone from Redis", false);
        }
    }
}
