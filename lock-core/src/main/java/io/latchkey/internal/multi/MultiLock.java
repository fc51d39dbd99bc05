package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.Acquisitions;
import io.latchkey.internal.lock.CallerWaits;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.Ticker;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The multi-lock: a {@link DistributedLock} over several locks of any kinds and any clients,
 * held all or none.
 *
 * <p><b>Why a facade of its own, not a protocol under {@code LockFacade}.</b> The acquire loop
 * under {@code LockFacade} waits between one-round-trip tries of one lock for that lock's
 * messages. A multi-lock's try is not one round trip, and it has no channel of its own: each of
 * its parts already waits by its own messages in its own loop (a fair lock in its queue, a
 * RedLock for its quorum). So it drives its parts' loops one after another ({@link MultiAcquisition}),
 * and a hold of it is its parts' holds ({@link LockHold#parts()}), which a protocol's single
 * grant and token cannot express. What the facade adds is the order, the all-or-none clean-up,
 * the one wait over all parts, and the record of its own holds ({@link MultiHolds}).
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
public final class MultiLock implements DistributedLock {

    private static final long FOREVER = Long.MAX_VALUE;

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

    // ---- blocking ----------------------------------------------------------------------------

    @Override
    public void lock() {
        lockUninterruptibly(null);
    }

    @Override
    public void lock(Duration leaseTime) {
        lockUninterruptibly(fixedLease(leaseTime));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireInterruptibly(null, FOREVER);
    }

    @Override
    public void lockInterruptibly(Duration leaseTime) throws InterruptedException {
        acquireInterruptibly(fixedLease(leaseTime), FOREVER);
    }

    @Override
    public boolean tryLock() {
        return await(start(currentOwner(), null, 0, Objects::nonNull));
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        // As Lock says and LockFacade does: a time <= 0 is one try, Long.MAX_VALUE of any unit forever.
        return acquireInterruptibly(null, Math.max(0, unit.toNanos(time))) != null;
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return acquireInterruptibly(null, waitNanos(waitTime)) != null;
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = waitNanos(waitTime);
        return acquireInterruptibly(fixedLease(leaseTime), wait) != null;
    }

    @Override
    public void unlock() {
        await(release(currentOwner()));
    }

    @Override
    public boolean forceUnlock() {
        return await(forceUnlockAsync());
    }

    @Override
    public boolean isLocked() {
        return await(isLockedAsync());
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

    // ---- async -------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long ownerId) {
        return start(ownerId, null, FOREVER, hold -> null);
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime) {
        return lockAsync(leaseTime, currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime, long ownerId) {
        return start(ownerId, fixedLease(leaseTime), FOREVER, hold -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(Duration.ZERO);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime) {
        return start(currentOwner(), null, waitNanos(waitTime), Objects::nonNull);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime) {
        return tryLockAsync(waitTime, leaseTime, currentOwner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime, long ownerId) {
        long wait = waitNanos(waitTime);
        return start(ownerId, fixedLease(leaseTime), wait, Objects::nonNull);
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long ownerId) {
        return release(ownerId);
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

    // ---- holds -------------------------------------------------------------------------------

    @Override
    public LockHold acquire() {
        return lockUninterruptibly(null);
    }

    @Override
    public LockHold acquire(Duration leaseTime) {
        return lockUninterruptibly(fixedLease(leaseTime));
    }

    @Override
    public LockHold acquireInterruptibly() throws InterruptedException {
        return acquireInterruptibly(null, FOREVER);
    }

    @Override
    public Optional<LockHold> tryAcquire(Duration waitTime) throws InterruptedException {
        return Optional.ofNullable(acquireInterruptibly(null, waitNanos(waitTime)));
    }

    @Override
    public Optional<LockHold> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = waitNanos(waitTime);
        return Optional.ofNullable(acquireInterruptibly(fixedLease(leaseTime), wait));
    }

    @Override
    public CompletableFuture<LockHold> acquireAsync(long ownerId) {
        return start(ownerId, null, FOREVER, hold -> hold);
    }

    @Override
    public CompletableFuture<LockHold> acquireAsync(Duration leaseTime, long ownerId) {
        return start(ownerId, fixedLease(leaseTime), FOREVER, hold -> hold);
    }

    @Override
    public CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, Duration leaseTime, long ownerId) {
        long wait = waitNanos(waitTime);
        return start(ownerId, fixedLease(leaseTime), wait, Optional::<LockHold>ofNullable);
    }

    @Override
    public CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, long ownerId) {
        return start(ownerId, null, waitNanos(waitTime), Optional::<LockHold>ofNullable);
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
    private CompletableFuture<Void> release(long owner) {
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

    private static Throwable failureOf(CompletableFuture<Void> future) {
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
    private final class Attempt {

        private final MultiAcquisition acquisition;
        private final CompletableFuture<MultiHoldHandle> result = new CompletableFuture<>();
        private final AtomicBoolean handedBack = new AtomicBoolean();

        Attempt(long owner, Duration leaseTime, long waitNanos) {
            MultiHold held = holds.current(identity, owner);
            if (held != null && held.isLost()) {
                acquisition = null;
                result.completeExceptionally(LockExceptions.leaseLost(name, owner, held.lossReason()));
                return;
            }
            acquisition = MultiAcquisition.start(parts, owner, leaseTime, ticker, waitNanos);
            acquisition.result().whenComplete((partHolds, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(Failures.unwrap(failure));
                } else if (partHolds == null) {
                    result.complete(null);
                } else {
                    granted(owner, partHolds);
                }
            });
        }

        private void granted(long owner, List<LockHold> partHolds) {
            MultiHold hold = holds.granted(identity, owner, name, partHolds);
            if (hold.isLost()) {
                // It re-entered a hold lost meanwhile: give this level back, leave the hold to its release.
                hold.leave();
                acquisition.cancel().whenComplete((ok, ignored) ->
                        result.completeExceptionally(LockExceptions.leaseLost(name, owner, hold.lossReason())));
            } else if (!result.complete(new MultiHoldHandle(MultiLock.this, hold, partHolds))) {
                hold.leave(); // cancelled as it was granted: the cancel releases the parts
                acquisition.cancel();
            }
        }

        CompletableFuture<MultiHoldHandle> result() {
            return result;
        }

        /** @return completes when nothing of this attempt is left */
        CompletableFuture<Void> cancel() {
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

    /**
     * Runs an attempt behind a future of the caller's own, so that cancelling it (or completing
     * it from outside) abandons the attempt and gives back the parts it may have taken meanwhile.
     */
    private <T> CompletableFuture<T> start(long owner, Duration leaseTime, long waitNanos, Function<LockHold, T> outcome) {
        Attempt attempt = new Attempt(owner, leaseTime, waitNanos);
        CompletableFuture<T> caller = new CompletableFuture<>();
        attempt.result().whenComplete((hold, failure) -> {
            if (failure != null) {
                caller.completeExceptionally(Failures.unwrap(failure));
            } else if (!caller.complete(outcome.apply(hold)) && hold != null) {
                attempt.cancel();
            }
        });
        caller.whenComplete((value, failure) -> {
            if (!attempt.result().isDone() || caller.isCancelled()) {
                attempt.cancel();
            }
        });
        return caller;
    }

    /** @return the hold, or null if the wait ran out */
    private LockHold acquireInterruptibly(Duration leaseTime, long waitNanos) throws InterruptedException {
        Attempt attempt = new Attempt(currentOwner(), leaseTime, waitNanos);
        try {
            return attempt.result().get();
        } catch (InterruptedException e) {
            CallerWaits.awaitUninterruptibly(attempt.cancel());
            throw e;
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    private LockHold lockUninterruptibly(Duration leaseTime) {
        return await(new Attempt(currentOwner(), leaseTime, FOREVER).result());
    }

    /** Waits without giving up on an interrupt, which it re-asserts on return. */
    private <T> T await(CompletableFuture<T> future) {
        return CallerWaits.await(name, future);
    }

    private RuntimeException rethrow(ExecutionException e) {
        return CallerWaits.rethrow(name, e);
    }

    @SuppressWarnings("deprecation") // Thread.threadId() arrives in Java 19; getId() is the same number
    private static long currentOwner() {
        return Thread.currentThread().getId();
    }

    private static Duration fixedLease(Duration leaseTime) {
        Acquisitions.fixedLease(leaseTime); // the same checks as every lock's
        return leaseTime;
    }

    private static long waitNanos(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
        }
        try {
            return waitTime.toNanos();
        } catch (ArithmeticException tooLong) {
            return FOREVER;
        }
    }

    @Override
    public String toString() {
        return "DistributedLock{multi-lock " + name + '}';
    }
}
