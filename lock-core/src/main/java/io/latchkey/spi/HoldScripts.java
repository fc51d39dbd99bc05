package io.latchkey.spi;

import io.latchkey.ReplicaAcknowledgement;
import io.latchkey.spi.ScriptRunner.Replicated;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The scripts of a lock kind whose holds are a count in the lock hash (the plain lock's, the fair
 * lock's), as the kind's {@link CountedHolds} send them: the kind writes the scripts, and lock-core
 * keeps the calls in order, settles those whose answer was lost and keeps the client's record
 * and the watchdog in step. Implementations are thread-safe and never block.
 */
public interface HoldScripts {

    /**
     * @param field the owner's field
     * @param lease the lease
     * @param call the call's id
     * @param held '' to take the lock or re-enter, 'fresh' for a new hold, else the token of
     *     the hold to re-enter, as acquire.lua takes it
     * @return {1, hold count, token} if granted, {0, the bound on the wait in milliseconds}
     *     if not (with a third element, the secret the try left with its place in line, for a
     *     kind whose release grants the next waiter: {@link TryResult#queuedSecret()}), {-1, 0}
     *     if the hold to re-enter is gone
     */
    CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held);

    /**
     * The acquire script with {@code WAIT} pipelined behind it on the same connection
     * ({@link ScriptRunner#evalReplicated}). A kind that does not override it acquires
     * without acknowledgement.
     *
     * @param field the owner's field
     * @param lease the lease
     * @param call the call's id
     * @param held as {@link #acquire} takes it
     * @param acknowledgement how many replicas to wait for, and how long
     * @return the reply of {@link #acquire} and the replicas' acknowledgement
     */
    default CompletableFuture<Replicated<List<Object>>> acquireReplicated(String field, LeaseTerm lease, String call,
                                                                            String held, ReplicaAcknowledgement acknowledgement) {
        return acquire(field, lease, call, held).thenApply(Replicated::unacknowledged);
    }

    /**
     * @param field the owner's field
     * @param call the call's id, or the id of the call being settled
     * @param mode {@code release}, {@code requeue} (a cohort's hold) or {@code undo}, as release.lua takes it
     * @return the holds left, or null if there was nothing to release
     */
    CompletableFuture<Long> release(String field, String call, String mode);

    /**
     * @param field the owner's field
     * @param call the call's id
     * @param token the token of the hold to end
     * @return ends every level of that hold if Redis still has it; null if it had not
     */
    CompletableFuture<Long> end(String field, String call, long token);

    /**
     * @param field the owner's field
     * @return drops what an acquire whose answer was lost may have left besides a hold, such
     *     as a place in a queue
     */
    default CompletableFuture<?> afterUndo(String field) {
        return CompletableFuture.completedFuture(null);
    }
}
