package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.AbstractDistributedLock;
import io.latchkey.internal.lock.Acquisition;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.Ticker;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The multi-lock: a {@link DistributedLock} over several locks of any kinds and any clients,
 * held all or none.
 *
 * <p><b>Why the facade's seam, not a protocol under {@code LockFacade}.</b> The acquire loop
 * under {@code LockFacade} waits between one-round-trip tries of one lock for that lock's
 * messages. A multi-lock's try is not one round trip, and it has no channel of its own: each of
 * its parts already waits by its own messages in its own loop (a fair lock in its queue, a
 * RedLock for its quorum). So it serves {@link AbstractDistributedLock}'s seam itself: an
 * acquisition drives its parts' loops one after another ({@link MultiAcquisition}), and a hold of
 * it is its parts' holds ({@link LockHold#parts()}), which a protocol's single grant and token
 * cannot express. What it adds is the order, the all-or-none clean-up, the one wait over all
 * parts, and the record of its own holds ({@link MultiHolds}).
 *
 * <p><b>Guarantees.</b> The parts are taken one at a time in {@link PartOrder}, which every
 * multi-lock over the same locks agrees on, so two multi-locks never deadlock against each other.
 * Every part's hold belongs to the same owner (the calling thread, or the given owner id) and
 * takes the same lease: a fixed one, or each part's own watchdog lease, renewed by that part's
 * client. A re-entry re-enters every part. On a timeout, an interrupt, a cancel or a failure of
 * any part, the parts taken are released and the part waited for is abandoned before the call
 * returns. {@code unlock()} releases one level of every part, at once.
 *
 * <p><b>Limits.</b> A lock held outside the multi-lock by an owner that then asks for a multi-lock
 * over it and other locks can deadlock with another owner, as any two locks taken in different
 * orders can. {@code tryLock(wait)} returns false when the wait ran out while a part was held
 * elsewhere; the wait is one budget over all parts, so a part taken late had only what the
 * earlier parts left of it. Queries other than {@code isLocked()} ask the parts one after another.
 *
 * <p>Thread-safe.
 */
public final class MultiLock extends AbstractDistributedLock<MultiHoldHandle> {

    private final List<Part> parts;
    private final List<Object> identity;
    private final String name;
    private final MultiHolds holds;
    private final Ticker ticker;

    private MultiLock(List<Part> parts, MultiHolds holds, Ticker ticker) {
        this.parts = parts;
        this.identity = parts.stream().map(Part::identity).toList();
        this.name = parts.stream().map(part -> part.lock().getName()).toList().toString();
        this.holds = holds;
        this.ticker = ticker;
    }

    /**
     * @param locks the parts: at least one, each once, none null
     * @param holds the record of the client's multi-lock holds
     * @param ticker the client's clock, for the wait over all parts
     * @param timer the client's timer, for parts that are not Latchkey's own locks
     * @param commandTimeout the client's bound on one round trip: the least wait that a part that
     *     is not one of Latchkey's own locks is given for one try
     * @return the multi-lock
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalArgumentException if there is none or one is given twice
     */
    public static MultiLock over(DistributedLock[] locks, MultiHolds holds, Ticker ticker, Timer timer, Duration commandTimeout) {
        return new MultiLock(PartOrder.of(locks, timer, commandTimeout.toNanos()), holds, ticker);
    }

    /** {@return the parts' names in acquisition order, as a list: {@code [a, b, c]}} */
    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return parts.stream().allMatch(part -> part.lock().isHeldByCurrentThread());
    }

    @Override
    public boolean isHeldBy(long ownerId) {
        return parts.stream().allMatch(part -> part.lock().isHeldBy(ownerId));
    }

    /** {@return the least hold count of the calling thread over the parts} */
    @Override
    public int getHoldCount() {
        return parts.stream().mapToInt(part -> part.lock().getHoldCount()).min().orElseThrow();
    }

    /** {@return the shortest remaining lease of the parts; {@link Duration#ZERO} if one is not locked} */
    @Override
    public Duration remainingLease() {
        return parts.stream().map(part -> part.lock().remainingLease()).min(Duration::compareTo).orElseThrow();
    }

    /**
     * Force-unlocks every part at once.
     *
     * @return true if any part was locked
     */
    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return anyOf(part -> part.lock().forceUnlockAsync());
    }

    /** {@return true while any part is locked} */
    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return anyOf(part -> part.lock().isLockedAsync());
    }

    // ---- the seam ----------------------------------------------------------------------------

    @Override
    protected Acquisition<MultiHoldHandle> start(long owner, @Nullable Duration leaseTime, long waitNanos) {
        return new Attempt(owner, leaseTime, waitNanos);
    }

    @Override
    protected LockHold handle(MultiHoldHandle grant) {
        return grant;
    }

    // ---- releasing ---------------------------------------------------------------------------

    /** A handle's close: releases its level of every part, on the caller's thread. */
    void close(MultiHold hold) {
        if (!hold.isLost() && !hold.isHeld()) {
            throw LockExceptions.holdAlreadyReleased(name, hold.owner());
        }
        await(releaseLevel(hold));
    }

    /** {@code unlock}: one level of the owner's hold; nothing is touched if it holds none. */
    @Override
    protected CompletableFuture<Void> release(long owner) {
        MultiHold hold = holds.current(identity, owner);
        if (hold == null) {
            return CompletableFuture.failedFuture(LockExceptions.notHeld(name, owner));
        }
        return releaseLevel(hold);
    }

    /**
     * Releases one level of every part at once. A part that says it is no longer held (its lease
     * was lost, or its release found it gone) makes the whole hold lost: the other parts are then
     * released to the hold's last level, and the caller learns of the loss.
     */
    private CompletableFuture<Void> releaseLevel(MultiHold hold) {
        if (hold.isLost()) {
            return endLost(hold, hold.levels());
        }
        List<CompletableFuture<Void>> released = parts.stream().map(part -> part.lock().unlockAsync(hold.owner())).toList();
        return CompletableFuture.allOf(released.toArray(CompletableFuture[]::new)).handle((ok, ignored) -> null)
                .thenCompose(ignored -> {
                    Throwable failure = null;
                    List<Part> stillHeld = new ArrayList<>();
                    for (int i = 0; i < parts.size(); i++) {
                        Throwable cause = failureOf(released.get(i));
                        if (cause instanceof IllegalMonitorStateException) {
                            hold.lose("the release of its part '" + parts.get(i).lock().getName() + "' found it no longer held: "
                                    + cause.getMessage());
                        } else if (cause == null) {
                            stillHeld.add(parts.get(i));
                        }
                        failure = failure == null ? cause : failure;
                    }
                    if (hold.isLost()) {
                        return endLost(hold, stillHeld, hold.levels() - 1);
                    }
                    hold.leave();
                    return failure == null ? CompletableFuture.<Void>completedFuture(null) : CompletableFuture.<Void>failedFuture(failure);
                });
    }

    private CompletableFuture<Void> endLost(MultiHold hold, int levels) {
        return endLost(hold, parts, levels);
    }

    /** Releases {@code levels} more levels of each of {@code from}, ends the hold, and fails with the loss. */
    private CompletableFuture<Void> endLost(MultiHold hold, List<Part> from, int levels) {
        List<CompletableFuture<Void>> releases = from.stream().map(part -> releaseTimes(part, hold.owner(), levels)).toList();
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).handle((ok, ignored) -> {
            hold.end();
            throw new CompletionException(LockExceptions.leaseLost(name, hold.owner(), hold.lossReason()));
        });
    }

    /** One level after another, stopping at the first that fails (a lost part ends its hold at once). */
    private static CompletableFuture<Void> releaseTimes(Part part, long owner, int times) {
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int i = 0; i < times; i++) {
            chain = chain.thenCompose(ignored -> part.lock().unlockAsync(owner));
        }
        return chain;
    }

    private static @Nullable Throwable failureOf(CompletableFuture<Void> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException | CancellationException e) {
            return Failures.unwrap(e);
        }
    }

    private CompletableFuture<Boolean> anyOf(Function<Part, CompletableFuture<Boolean>> query) {
        List<CompletableFuture<Boolean>> answers = parts.stream().map(query).toList();
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> answers.stream().anyMatch(CompletableFuture::join));
    }

    // ---- acquiring ---------------------------------------------------------------------------

    /**
     * One acquisition of every part, and the record of its grant. Its result is the handle, or
     * null if the wait ran out; the cancel gives back a grant that no caller will see.
     */
    private final class Attempt implements Acquisition<MultiHoldHandle> {

        /** Null when the attempt failed at once, on a hold lost before it. */
        private final @Nullable MultiAcquisition acquisition;
        private final CompletableFuture<MultiHoldHandle> result = new CompletableFuture<>();
        private final AtomicBoolean handedBack = new AtomicBoolean();

        Attempt(long owner, @Nullable Duration leaseTime, long waitNanos) {
            MultiHold held = holds.current(identity, owner);
            if (held != null && held.isLost()) {
                acquisition = null;
                result.completeExceptionally(LockExceptions.leaseLost(name, owner, held.lossReason()));
                return;
            }
            MultiAcquisition started = MultiAcquisition.start(parts, owner, leaseTime, ticker, waitNanos);
            acquisition = started;
            started.result().whenComplete((partHolds, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(Failures.unwrap(failure));
                } else if (partHolds == null) {
                    result.complete(null);
                } else {
                    granted(started, owner, partHolds);
                }
            });
        }

        private void granted(MultiAcquisition started, long owner, List<LockHold> partHolds) {
            MultiHold hold = holds.granted(identity, owner, name, partHolds);
            if (hold.isLost()) {
                // It re-entered a hold lost meanwhile: give this level back, leave the hold to its release.
                hold.leave();
                started.cancel().whenComplete((ok, ignored) ->
                        result.completeExceptionally(LockExceptions.leaseLost(name, owner, hold.lossReason())));
            } else if (!result.complete(new MultiHoldHandle(MultiLock.this, hold, partHolds))) {
                hold.leave(); // cancelled as it was granted: the cancel releases the parts
                started.cancel();
            }
        }

        @Override
        public CompletableFuture<MultiHoldHandle> result() {
            return result;
        }

        @Override
        public CompletableFuture<Void> cancel() {
            if (acquisition == null) {
                return CompletableFuture.completedFuture(null);
            }
            if (!result.cancel(false) && !result.isCompletedExceptionally()) {
                MultiHoldHandle handle = result.join();
                if (handle != null && handedBack.compareAndSet(false, true)) {
                    handle.handBack();
                }
            }
            return acquisition.cancel();
        }
    }

    @Override
    public String toString() {
        return "DistributedLock{multi-lock " + name + '}';
    }
}
