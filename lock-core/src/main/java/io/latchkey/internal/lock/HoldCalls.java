package io.latchkey.internal.lock;

import io.latchkey.LockConfig.ReplicaShortfall;
import io.latchkey.LockException;
import io.latchkey.ReplicaAcknowledgement;
import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.watchdog.Renewal;
import io.latchkey.spi.CountedHolds;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.ScriptRunner.Replicated;
import io.latchkey.spi.TryResult;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls that change an owner's hold count in a lock hash, for the lock kinds whose holds
 * are such a count (plain, fair, and both sides of the read-write lock), and what keeps the
 * client's record of a hold in step with it: a grant's token and confirmed lease, renewals, and a
 * hold given up for lost ended in Redis too. Each call goes after the owner's earlier calls on
 * the lock, whatever its hold's field ({@link UnsettledCalls}), carries an id that the scripts
 * remember beside the hold, is settled when its answer is lost. A grant offers the hold the
 * watchdog's renewal of its field ({@link Hold#renewWith}), which the hold starts and stops by
 * its own levels. Thread-safe.
 */
public final class HoldCalls implements CountedHolds {

    private static final Logger log = LoggerFactory.getLogger(HoldCalls.class);
    private static final String RELEASE = "release";
    private static final String REQUEUE = "requeue";
    private static final String FRESH = "fresh";
    private static final String UNDO = "undo";

    private final String name;
    private final String lock;
    private final LockContext context;
    private final Layout layout;
    private final HoldScripts scripts;
    private final GrantTakes takes;

    /**
     * For a lock whose owners each have one hold, a field of the lock hash that
     * {@link Renewal#LOCK_HASH} renews.
     *
     * @param name the lock's name, for messages
     * @param lock the lock hash
     * @param context the client's shared machinery
     * @param scripts the lock kind's acquire and release scripts
     */
    public HoldCalls(String name, String lock, LockContext context, HoldScripts scripts) {
        this(name, context, Layout.lockHash(lock), scripts);
    }

    /**
     * @param name the lock's name, for messages
     * @param context the client's shared machinery
     * @param layout the field of an owner's hold and how the watchdog renews it
     * @param scripts the lock kind's acquire and release scripts
     */
    public HoldCalls(String name, LockContext context, Layout layout, HoldScripts scripts) {
        this.name = name;
        this.lock = layout.lock();
        this.context = context;
        this.layout = layout;
        this.scripts = scripts;
        this.takes = new GrantTakes(name, lock, context, scripts);
    }

    /**
     * @param owner the owner id
     * @return the owner's field of this kind of hold in the lock hash, as the scripts get it
     */
    public String field(long owner) {
        return context.field(owner) + layout.fieldSuffix();
    }

    /**
     * One try.
     *
     * @param owner the owner id
     * @param lease the lease to take; a re-entry never shortens the hold's lease
     * @param heldToken the token of the hold to re-enter, or 0 to take the lock or re-enter
     *     whatever hold the owner has
     * @return the try's result
     */
    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        return tryAcquire(owner, lease, heldToken == 0 ? "" : Long.toString(heldToken));
    }

    /**
     * One try that starts a new hold, replacing a hold of the owner that its client gave up for
     * lost, if Redis still has it. For lock kinds built of other locks (a RedLock's masters),
     * whose holds are recorded by the composite, not per part.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @return the try's result
     */
    @Override
    public CompletableFuture<TryResult> tryAcquireNew(long owner, LeaseTerm lease) {
        return tryAcquire(owner, lease, FRESH);
    }

    /**
     * One try that starts a new hold, replacing a hold of the owner that Redis may still have
     * (one its client gave up for lost), with replica acknowledgement as configured: for a
     * cohort, whose new hold must never re-enter an old one and take its token again.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @return the try's result
     */
    public CompletableFuture<TryResult> tryAcquireReplacing(long owner, LeaseTerm lease) {
        return tryAcquire(owner, lease, FRESH, true);
    }

    private CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, String held) {
        return tryAcquire(owner, lease, held, !FRESH.equals(held));
    }

    /**
     * A try; where replica acknowledgement is configured, {@code WAIT} goes right behind the
     * acquire script, and a grant that fewer replicas acknowledged meets the configured shortfall.
     * Not for a RedLock's masters ({@code acknowledged} false): a RedLock outlives a lost master
     * by its quorum, and its masters are independent servers that need not have replicas.
     */
    private CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, String held, boolean acknowledged) {
        String field = field(owner);
        HoldId hold = context.hold(lock, owner);
        UnsettledCalls unsettled = context.unsettled();
        Optional<ReplicaAcknowledgement> acknowledgement = acknowledged ? context.config().replicaAcknowledgement()
                : Optional.empty();
        long[] sentAtNanos = new long[1];
        return unsettled.after(hold, () -> {
            String call = unsettled.nextCallId();
            sentAtNanos[0] = context.ticker().read();
            CompletableFuture<Replicated<List<Object>>> sent = acknowledgement
                    .map(wanted -> scripts.acquireReplicated(field, lease, call, held, wanted))
                    .orElseGet(() -> scripts.acquire(field, lease, call, held).thenApply(Replicated::unacknowledged));
            return sent.whenComplete((reply, failure) -> {
                if (failure != null && Failures.mayHaveRun(failure)) {
                    unsettled.settleLater(hold, "acquire " + call, () -> scripts.release(field, call, UNDO)
                            .thenCompose(undone -> scripts.afterUndo(field)));
                }
            });
        }, replicated -> queuedSecret(replicated.reply())).thenCompose(replicated -> {
            List<Object> reply = replicated.reply();
            long answer = (Long) reply.get(0);
            if (answer == 0L) {
                long wait = (Long) reply.get(1);
                String secret = queuedSecret(reply);
                return CompletableFuture.completedFuture(secret != null ? TryResult.queued(wait, secret) : TryResult.busy(wait));
            }
            if (answer < 0L) {
                return CompletableFuture.completedFuture(TryResult.goneHold());
            }
            long token = (Long) reply.get(2);
            long untilNanos = sentAtNanos[0] + TimeUnit.MILLISECONDS.toNanos(lease.millis());
            boolean anotherClientWaits = reply.size() > 3 && (Long) reply.get(3) == 1L;
            TryResult granted = TryResult.acquired(new Granted(owner, field, token, untilNanos, anotherClientWaits, null));
            return acknowledgement.isEmpty() ? CompletableFuture.completedFuture(granted)
                    : replicated.acknowledged().handle((acks, failure) ->
                            checkAcknowledged(acknowledgement.get(), acks, failure, granted, hold, field))
                    .thenCompose(checked -> checked);
        });
    }

    /** @return the secret that a try answered "not acquired" left with the owner's place in line, if the kind keeps one */
    private static @Nullable String queuedSecret(List<Object> reply) {
        Object secret = reply.size() > 2 && (Long) reply.get(0) == 0L ? reply.get(2) : null;
        return secret instanceof String kept && !kept.isEmpty() ? kept : null;
    }

    /**
     * A grant that fewer replicas acknowledged than asked (or whose WAIT answer was lost): with
     * {@link ReplicaShortfall#FAIL} one level is given back (the grant's, whether it began the
     * hold or re-entered it) and the try fails; with {@link ReplicaShortfall#WARN} it stands.
     */
    private CompletableFuture<TryResult> checkAcknowledged(ReplicaAcknowledgement wanted, OptionalLong acks,
                                                           Throwable failure, TryResult granted, HoldId hold, String field) {
        if (failure == null && (acks.isEmpty() || acks.getAsLong() >= wanted.replicas())) {
            return CompletableFuture.completedFuture(granted);
        }
        long acknowledged = failure == null ? acks.getAsLong() : -1;
        if (wanted.onShortfall() == ReplicaShortfall.WARN) {
            log.warn("Lock '{}' is held although {}", name, acknowledged < 0
                    ? "the answer of WAIT was lost: " + failure
                    : "only " + acknowledged + " of " + wanted.replicas() + " replicas acknowledged it within " + wanted.timeout());
            return CompletableFuture.completedFuture(granted);
        }
        LockException notAcknowledged = LockExceptions.notAcknowledged(name, wanted.replicas(), acknowledged,
                wanted.timeout(), failure);
        return giveBack(hold, field).handle((ignored, releaseFailure) -> {
            throw new CompletionException(notAcknowledged);
        });
    }

    /**
     * Releases the one level an unacknowledged grant added, by the release script alone: no
     * hold ever had that level. A release whose answer is lost is settled later.
     */
    private CompletableFuture<?> giveBack(HoldId hold, String field) {
        UnsettledCalls unsettled = context.unsettled();
        String call = unsettled.nextCallId();
        return unsettled.after(hold, () -> unsettled.sendOrSettleLater(hold, "release of unacknowledged grant " + call,
                () -> scripts.release(field, call, RELEASE), () -> scripts.release(field, call, RELEASE)));
    }

    @Override
    public @Nullable TryResult takeGranted(long owner, LeaseTerm lease, long token, String secret, long untilNanos) {
        String field = field(owner);
        GrantTakes.Taking taking = takes.take(owner, field, lease, token, secret, untilNanos);
        return taking == null ? null
                : TryResult.acquired(new Granted(owner, field, token, taking.confirmedUntilNanos(), false, taking));
    }

    @Override
    public CompletableFuture<Void> sendPendingTake(long owner) {
        return context.unsettled().grants().sendDeferred(context.hold(lock, owner));
    }

    @Override
    public void leftTheQueue(long owner) {
        context.unsettled().grants().leftTheQueue(context.hold(lock, owner));
    }

    /**
     * Ends a hold that the client gave up for lost, if Redis still has it, before the owner's next
     * call on the lock: its next acquisition must be a new hold.
     *
     * @param owner the owner id
     * @param token the lost hold's token
     */
    public void endLost(long owner, long token) {
        String field = field(owner);
        String call = context.unsettled().nextCallId();
        context.unsettled().settleLater(context.hold(lock, owner), "end of lost hold " + token,
                () -> scripts.end(field, call, token));
    }

    /** One granted level of a hold whose count is kept in the lock hash. */
    private final class Granted implements TryResult.Grant {
        private final long owner;
        private final String field;
        private final long token;
        private final long untilNanos;
        private final boolean anotherClientWaits;
        /** For a hold granted by the kind's release, its take in Redis ({@link #takeGranted}); else null. */
        private final GrantTakes.@Nullable Taking taking;

        Granted(long owner, String field, long token, long untilNanos, boolean anotherClientWaits,
                GrantTakes.@Nullable Taking taking) {
            this.owner = owner;
            this.field = field;
            this.token = token;
            this.untilNanos = untilNanos;
            this.anotherClientWaits = anotherClientWaits;
            this.taking = taking;
        }

        @Override
        public long fencingToken() {
            return token;
        }

        @Override
        public boolean anotherClientWaits() {
            return anotherClientWaits;
        }

        @Override
        public long confirmedUntilNanos() {
            return untilNanos;
        }

        @Override
        public void start(Hold hold) {
            hold.onLoss((lost, mayRemainInRedis) -> {
                if (mayRemainInRedis) {
                    endLost(owner, token);
                }
            });
            hold.renewWith(() -> context.renewer().renew(context.executor(), layout.renewal(), layout.renewalKeys(), field, hold));
            if (taking != null) {
                taking.attach(hold);
            }
        }

        @Override
        public void refuse() {
            if (taking != null) {
                taking.detach();
            }
        }
    }

    /**
     * Releases one hold. The caller stops the level's renewal first (a {@link Hold} with
     * {@link Hold#releasing()}); if Redis's answer is lost, or Redis refused it for a passing
     * reason (a failover), the release fails with a {@link LockException} that says so, and is
     * completed as soon as Redis can take it. Once Redis answers that the owner holds nothing
     * more, nothing renews its field any more.
     *
     * @param owner the owner id
     * @return completes when released; fails with {@link IllegalMonitorStateException} if the
     *     owner held nothing, in which case nothing changed
     */
    @Override
    public CompletableFuture<Void> release(long owner) {
        return release(owner, RELEASE);
    }

    /**
     * Releases one hold of a cohort's client whose own owners still wait: as
     * {@link #release(long)}, and if the release deletes the lock, the lock's waiting mark names
     * the client, in the same script, so that the next holder's grant already finds it.
     *
     * @param owner the cohort's owner id
     * @return as {@link #release(long)}
     */
    public CompletableFuture<Void> requeue(long owner) {
        return release(owner, REQUEUE);
    }

    private CompletableFuture<Void> release(long owner, String mode) {
        String field = field(owner);
        HoldId hold = context.hold(lock, owner);
        UnsettledCalls unsettled = context.unsettled();
        String call = unsettled.nextCallId();
        Function<Throwable, LockException> deferred = failure -> LockExceptions.releaseDeferred(name, owner, failure);
        // An owner whose take of a grant is still its only call in flight holds just the grant's
        // level (a re-entry would have gone after the take), so its release ends that hold by its
        // token, at once behind the take: the same in Redis whether the take ran first (count 1)
        // or not (count 0, which a release would leave alone), and a take that runs after it
        // finds nothing to take. Waiting for the take's answer put a round trip on every hand-off.
        @Nullable CompletableFuture<Long> reply = mode.equals(RELEASE)
                ? unsettled.grants().behindTakeOrSettleLater(hold, "release " + call, token -> scripts.end(field, call, token), deferred)
                : null;
        if (reply == null) {
            // A requeue's mark is worth writing only with the release it belongs to: sent again later,
            // it could name a client whose owners have all left since, so it is sent as a release.
            reply = unsettled.afterOrSettleLater(hold, "release " + call, () -> scripts.release(field, call, mode),
                    () -> scripts.release(field, call, RELEASE), deferred);
        }
        return reply.thenApply(left -> {
            if (left == null || left == 0L) {
                context.renewer().cancel(context.executor(), lock, field);
            }
            if (left == null) {
                throw LockExceptions.notHeld(name, owner);
            }
            return null;
        });
    }

    /**
     * Where an owner's hold lies in the lock hash, and how the watchdog renews it.
     *
     * @param fieldSuffix appended to the owner's field {@code <clientId>:<ownerId>}: empty where an
     *     owner has one hold of the lock, else what tells its holds of one lock apart (the read and
     *     the write hold of a read-write lock); the scripts keep {@code :call} and {@code :token}
     *     beside the field so made
     * @param renewal the script that renews such holds
     * @param renewalKeys the keys {@code renewal} takes per hold, the lock hash first
     */
    public record Layout(String fieldSuffix, Renewal renewal, List<String> renewalKeys) {

        /**
         * @param fieldSuffix see above
         * @param renewal see above
         * @param renewalKeys see above: as many as {@code renewal} takes per hold, which the
         *     watchdog checks at each grant
         */
        public Layout {
            renewalKeys = List.copyOf(renewalKeys);
        }

        /**
         * @param lock the lock hash
         * @return one hold per owner, the field {@code <clientId>:<ownerId>}, renewed by {@link Renewal#LOCK_HASH}
         */
        public static Layout lockHash(String lock) {
            return new Layout("", Renewal.LOCK_HASH, List.of(lock));
        }

        /** @return the lock hash */
        public String lock() {
            return renewalKeys.get(0);
        }
    }
}
