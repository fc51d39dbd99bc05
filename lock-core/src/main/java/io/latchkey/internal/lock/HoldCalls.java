package io.latchkey.internal.lock;

import io.latchkey.LockException;
import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.watchdog.LeaseRenewer.LeaseListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The calls that change an owner's hold count in a lock hash, for the lock kinds whose holds
 * are such a count (plain and fair). Each call goes after the owner's earlier calls on the lock
 * ({@link UnsettledCalls}), carries an id that the scripts remember beside the hold, is settled
 * when its answer is lost, and keeps the watchdog in step: a grant's renewal records the level
 * with its lease (the acquire loop starts it), and a level stops counting for renewal the moment
 * its release is asked for. Thread-safe.
 */
public final class HoldCalls {

    private static final String RELEASE = "release";
    private static final String UNDO = "undo";

    private final String name;
    private final String lock;
    private final LockContext context;
    private final Scripts scripts;

    /**
     * @param name the lock's name, for messages
     * @param lock the lock hash
     * @param context the client's shared machinery
     * @param scripts the lock kind's acquire and release scripts
     */
    public HoldCalls(String name, String lock, LockContext context, Scripts scripts) {
        this.name = name;
        this.lock = lock;
        this.context = context;
        this.scripts = scripts;
    }

    /**
     * One try.
     *
     * @param owner the owner id
     * @param lease the lease to take; a re-entry never shortens the hold's lease
     * @return the try's result; a grant's renewal records the level with the watchdog
     */
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease) {
        String field = context.field(owner);
        HoldId hold = context.hold(lock, owner);
        UnsettledCalls unsettled = context.unsettled();
        return unsettled.after(hold, () -> {
            String call = unsettled.nextCallId();
            return scripts.acquire(field, lease, call).whenComplete((reply, failure) -> {
                if (failure != null && LockExceptions.isOutcomeUnknown(failure)) {
                    unsettled.settleLater(hold, "acquire " + call, () -> scripts.release(field, call, UNDO)
                            .thenCompose(undone -> scripts.afterUndo(field)));
                }
            });
        }).thenApply(reply -> {
            long value = (Long) reply.get(1);
            if ((Long) reply.get(0) == 0L) {
                return TryResult.busy(value);
            }
            return TryResult.acquired(() -> context.renewer()
                    .granted(context.executor(), lock, field, lease.renewed(), value, LeaseListener.LOG));
        });
    }

    /**
     * Releases one hold. The level stops counting for the watchdog at once; if Redis's answer is
     * lost, or Redis refused it for a passing reason (a failover), the release fails with a
     * {@link LockException} that says so, and is completed as soon as Redis can take it.
     *
     * @param owner the owner id
     * @return completes when released; fails with {@link IllegalMonitorStateException} if the
     *     owner held nothing, in which case nothing changed
     */
    public CompletableFuture<Void> release(long owner) {
        String field = context.field(owner);
        HoldId hold = context.hold(lock, owner);
        UnsettledCalls unsettled = context.unsettled();
        String call = unsettled.nextCallId();
        context.renewer().releasing(context.executor(), lock, field);
        Supplier<CompletableFuture<?>> again = () -> scripts.release(field, call, RELEASE);
        AtomicBoolean sent = new AtomicBoolean();
        return unsettled.after(hold, () -> {
            sent.set(true);
            // Registered before the call counts as answered, so the owner's next call comes after it.
            return scripts.release(field, call, RELEASE).whenComplete((left, failure) -> {
                if (failure != null && (LockExceptions.isOutcomeUnknown(failure) || LockExceptions.isPassingRefusal(failure))) {
                    unsettled.settleLater(hold, "release " + call, again);
                }
            });
        }).handle((left, failure) -> {
            if (failure != null) {
                if (!LockExceptions.isOutcomeUnknown(failure) && !LockExceptions.isPassingRefusal(failure)) {
                    throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
                }
                if (!sent.get()) {
                    // An earlier call could not be settled, so this one never left: it is owed too.
                    unsettled.settleLater(hold, "release " + call, again);
                }
                throw LockExceptions.releaseDeferred(name, owner, failure);
            }
            if (left == null || left == 0L) {
                context.renewer().cancel(context.executor(), lock, field);
            }
            if (left == null) {
                throw LockExceptions.notHeld(name, owner);
            }
            return null;
        });
    }

    /** The scripts of a lock kind whose holds are a count in the lock hash. */
    public interface Scripts {

        /**
         * @param field the owner's field
         * @param lease the lease
         * @param call the call's id
         * @return {1, hold count} if granted, else {0, the bound on the wait in milliseconds}
         */
        CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call);

        /**
         * @param field the owner's field
         * @param call the call's id, or the id of the call being settled
         * @param mode {@code release} or {@code undo}, as release.lua takes it
         * @return the holds left, or null if there was nothing to release
         */
        CompletableFuture<Long> release(String field, String call, String mode);

        /**
         * @param field the owner's field
         * @return drops what an acquire whose answer was lost may have left besides a hold, such
         *     as a place in a queue
         */
        default CompletableFuture<?> afterUndo(String field) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
