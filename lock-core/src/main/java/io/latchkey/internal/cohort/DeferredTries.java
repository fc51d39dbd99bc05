package io.latchkey.internal.cohort;

import io.latchkey.spi.TryResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The tries that found a Redis call of the cohort in flight, answered as that call ends. They
 * share its answer rather than try Redis again one after another: a client's waiters send one try
 * at a time, and no more than the lock's messages call for.
 *
 * <p>Not thread-safe: guarded by the owning {@link Cohort}'s monitor. The answers taken here are
 * completed by the caller once it has left that monitor.
 */
final class DeferredTries {

    private final Attendance attendance;
    private final List<Deferred> deferred = new ArrayList<>();

    /** @param attendance the cohort's, where the owners of taken tries count as told "busy" */
    DeferredTries(Attendance attendance) {
        this.attendance = attendance;
    }

    /** @return the answer to a try of {@code owner}, completed when the Redis call in flight ends */
    CompletableFuture<TryResult> defer(long owner) {
        CompletableFuture<TryResult> later = new CompletableFuture<>();
        deferred.add(new Deferred(owner, later));
        return later;
    }

    /**
     * @return every deferred try, to be answered "busy" once the monitor is left; their owners
     *     count as undecided until they join the waiters or leave
     */
    List<Deferred> take() {
        if (deferred.isEmpty()) {
            return List.of();
        }
        List<Deferred> taken = new ArrayList<>(deferred);
        deferred.clear();
        taken.forEach(later -> attendance.toldBusy(later.owner()));
        return taken;
    }

    /** @return whether no try waits here */
    boolean isEmpty() {
        return deferred.isEmpty();
    }

    @Override
    public String toString() {
        return "deferred " + deferred.size();
    }

    /** A try deferred behind a Redis call of the cohort. */
    record Deferred(long owner, CompletableFuture<TryResult> answer) {
    }
}
