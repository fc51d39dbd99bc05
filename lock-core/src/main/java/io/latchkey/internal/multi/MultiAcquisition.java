package io.latchkey.internal.multi;

import io.latchkey.LockHold;
import io.latchkey.internal.lock.Acquisition;
import io.latchkey.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a multi-lock: its parts one after another, in the global order, each waiting
 * by its own messages for what is left of the one wait. A part taken stays held while the next is
 * waited for; this cannot deadlock with another multi-lock, which waits in the same order. When
 * a part's wait runs out, a part fails, or the acquisition is cancelled, the parts taken so far
 * are released (and the part being waited for is abandoned) before the result says so: the
 * result is all the parts' holds, or, once nothing is left, none.
 *
 * <p>Steps run one after another, each started by the completion of the last; the fields that a
 * cancel reads are guarded by this.
 */
final class MultiAcquisition {

    private static final long FOREVER = Long.MAX_VALUE;

    private final List<Part> parts;
    private final long owner;
    private final @Nullable Duration leaseTime;
    private final Ticker ticker;
    private final long deadlineNanos;
    /** The parts' holds once all are taken; null when the wait ran out. */
    private final CompletableFuture<List<LockHold>> result = new CompletableFuture<>();
    /** Guarded by this: the acquisitions of the parts taken so far, and then the one under way. */
    private final List<Acquisition<LockHold>> started = new ArrayList<>();
    /** Guarded by this: the one clean-up, once started. */
    private @Nullable CompletableFuture<Void> cleanUp;

    private MultiAcquisition(List<Part> parts, long owner, @Nullable Duration leaseTime, Ticker ticker, long waitNanos) {
        this.parts = parts;
        this.owner = owner;
        this.leaseTime = leaseTime;
        this.ticker = ticker;
        this.deadlineNanos = waitNanos == FOREVER ? FOREVER : ticker.read() + waitNanos;
    }

    /**
     * @param parts the parts in acquisition order
     * @param owner the owner of every part's hold
     * @param leaseTime a fixed lease for every part, or null for each part's watchdog lease
     * @param ticker the clock of the wait
     * @param waitNanos the longest wait over all parts; {@link Long#MAX_VALUE} for as long as it takes
     * @return the running acquisition
     */
    static MultiAcquisition start(List<Part> parts, long owner, @Nullable Duration leaseTime, Ticker ticker, long waitNanos) {
        MultiAcquisition acquisition = new MultiAcquisition(parts, owner, leaseTime, ticker, waitNanos);
        acquisition.take(0);
        return acquisition;
    }

    /**
     * @return every part's hold, in acquisition order; null if a part stayed held elsewhere until
     *     the wait ran out; fails with the first part's failure. Either way nothing is left
     *     before it completes without the holds
     */
    CompletableFuture<List<LockHold>> result() {
        return result;
    }

    /**
     * Gives up: abandons the part being waited for and releases every part taken, also after all
     * were taken (once however often it is called).
     *
     * @return completes when nothing of this acquisition is left
     */
    CompletableFuture<Void> cancel() {
        result.cancel(false);
        return cleanUp();
    }

    /**
     * Takes the parts from {@code first} on. A part granted at once (a re-entry) is followed in
     * this loop, not in a stage of its result, which would nest one call per part: a multi-lock of
     * a thousand re-entered parts once overflowed the stack, and the error left parts held.
     */
    private void take(int first) {
        for (int index = first; ; index++) {
            if (index == parts.size()) {
                finish();
                return;
            }
            Acquisition<LockHold> part;
            try {
                part = parts.get(index).start(owner, leaseTime, remainingNanos());
            } catch (Throwable e) {
                fail(e);
                return;
            }
            synchronized (this) {
                started.add(part);
                if (cleanUp != null) {
                    part.cancel(); // cancelled meanwhile: the clean-up did not see this one
                    return;
                }
            }
            CompletableFuture<LockHold> taken = part.result();
            if (!taken.isDone()) {
                int next = index + 1;
                taken.whenComplete((hold, failure) -> {
                    try {
                        if (goesOn(hold, failure)) {
                            take(next);
                        }
                    } catch (Throwable e) {
                        fail(e);
                    }
                });
                return;
            }
            @Nullable LockHold hold = null;
            @Nullable Throwable failure = null;
            try {
                hold = taken.join();
            } catch (CompletionException | CancellationException e) {
                failure = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            }
            if (!goesOn(hold, failure)) {
                return;
            }
        }
    }

    /** @return true if the next part is to be taken; else the acquisition ends as the part's outcome says */
    private boolean goesOn(@Nullable LockHold hold, @Nullable Throwable failure) {
        if (failure != null) {
            fail(failure);
        } else if (hold == null) {
            cleanUp().whenComplete((ok, ignored) -> result.complete(null));
        } else if (result.isDone()) {
            cleanUp();
        } else {
            return true;
        }
        return false;
    }

    private void finish() {
        List<LockHold> holds = new ArrayList<>(parts.size());
        synchronized (this) {
            for (Acquisition<LockHold> part : started) {
                holds.add(Objects.requireNonNull(part.result().join()));
            }
        }
        if (!result.complete(holds)) {
            cleanUp(); // cancelled as the last part was granted
        }
    }

    private void fail(Throwable failure) {
        cleanUp().whenComplete((ok, ignored) -> result.completeExceptionally(failure));
    }

    private CompletableFuture<Void> cleanUp() {
        List<Acquisition<LockHold>> toCancel;
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (this) {
            if (cleanUp != null) {
                return cleanUp;
            }
            cleanUp = done;
            toCancel = List.copyOf(started);
        }
        // Outside the monitor: a cancel may complete a part's result, and so run its stage, at once.
        CompletableFuture.allOf(toCancel.stream().map(Acquisition::cancel).toArray(CompletableFuture[]::new))
                .whenComplete((ok, failure) -> done.complete(null));
        return done;
    }

    private long remainingNanos() {
        return deadlineNanos == FOREVER ? FOREVER : Math.max(0, deadlineNanos - ticker.read());
    }
}
