package io.latchkey.internal.lock;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.netty.util.Timer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one owner's hold of one lock ({@link UnsettledCalls}): admitted one at a time, and
 * the unsettled ones settled oldest first, retried on the client's timer with a growing pause
 * until Redis answers. Thread-safe.
 */
final class CallLine {

    private static final Logger log = LoggerFactory.getLogger(CallLine.class);
    private static final long FIRST_RETRY_MILLIS = 20;
    private static final long MAX_RETRY_MILLIS = 1000;

    private final HoldId hold;
    private final Timer timer;
    private final BooleanSupplier closed;
    private final Consumer<CallLine> whenIdle;
    /** Guarded by this: completes when the last admitted call has answered or failed. */
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    /** Guarded by this: calls admitted and not finished. */
    private int inFlight;
    /** Guarded by this. */
    private final Deque<Pending> unsettled = new ArrayDeque<>();
    /** Guarded by this: the drain in progress, so that at most one runs. */
    private @Nullable CompletableFuture<Void> draining;
    /** Guarded by this. */
    private long retryMillis = FIRST_RETRY_MILLIS;
    /** Guarded by this. */
    private boolean retryScheduled;
    /** Guarded by this: calls admitted so far. */
    private long admissions;
    /** Guarded by this: the admission of a call that left the owner waiting in line and nothing since, or -1. */
    private long queuedTry = -1;
    /** Guarded by this: the secret that call left with the owner's place; null when {@code queuedTry} is -1. */
    private @Nullable String queuedSecret;
    /** Guarded by this: the admission of the last take of a grant ({@link #admitAfterQueuedTry}), or -1. */
    private long take = -1;
    /** Guarded by this: the token of the grant that take takes. */
    private long takeToken;
    /** Guarded by this: that take, if it is not sent yet, or null. */
    private @Nullable DeferredCall deferredTake;

    /**
     * @param hold the owner's hold
     * @param timer the client's timer, which schedules retries
     * @param closed whether the client closed: retries stop
     * @param whenIdle told when the line may have become idle ({@link #isIdle}), to drop it
     */
    CallLine(HoldId hold, Timer timer, BooleanSupplier closed, Consumer<CallLine> whenIdle) {
        this.hold = hold;
        this.timer = timer;
        this.closed = closed;
        this.whenIdle = whenIdle;
    }

    HoldId hold() {
        return hold;
    }

    /** @return this call's admission */
    synchronized long admit() {
        inFlight++;
        forgetQueuedTry();
        return ++admissions;
    }

    /** The call admitted as {@code admission} left the owner waiting in line with {@code secret}: kept, if nothing came since. */
    synchronized void keep(long admission, String secret) {
        if (admission == admissions && unsettled.isEmpty()) {
            queuedTry = admission;
            queuedSecret = secret;
        }
    }

    synchronized void forgetQueuedTry() {
        queuedTry = -1;
        queuedSecret = null;
    }

    /**
     * Admits the take of the grant with {@code token} as {@link #admit} does, only if the last call
     * left the owner in line with {@code secret} and nothing came since.
     */
    synchronized boolean admitAfterQueuedTry(String secret, long token, CompletableFuture<Void> done,
                                             @Nullable DeferredCall deferred) {
        if (queuedTry < 0 || queuedTry != admissions || !secret.equals(queuedSecret) || inFlight != 0
                || !unsettled.isEmpty() || draining != null || retryScheduled) {
            return false;
        }
        take = admit();
        takeToken = token;
        deferredTake = deferred;
        tail = done;
        return true;
    }

    /** @return the take admitted last if it is not sent yet, which the caller sends or cancels; else null */
    synchronized @Nullable DeferredCall claimDeferredTake() {
        DeferredCall claimed = deferredTake;
        deferredTake = null;
        return claimed;
    }

    /**
     * Admits a call at once if the only call in flight is the take of a grant, nothing was admitted
     * since, and nothing is unsettled; the calls after it wait for both.
     *
     * @return the token of the grant being taken, or 0 if nothing was admitted
     */
    synchronized long admitBehindTake(CompletableFuture<Void> done) {
        if (take != admissions || inFlight != 1 || !unsettled.isEmpty() || draining != null || retryScheduled) {
            return 0;
        }
        admit();
        tail = CompletableFuture.allOf(tail, done);
        return takeToken;
    }

    synchronized void finish() {
        inFlight--;
    }

    /** @return the future of the call before, which {@code done} follows from now on */
    synchronized CompletableFuture<Void> queueBehind(CompletableFuture<Void> done) {
        CompletableFuture<Void> previous = tail;
        tail = done;
        return previous;
    }

    synchronized void add(String what, Supplier<CompletableFuture<?>> settle) {
        forgetQueuedTry();
        unsettled.addLast(new Pending(what, settle));
    }

    synchronized boolean isSettled() {
        return unsettled.isEmpty() && draining == null;
    }

    synchronized boolean isIdle() {
        return inFlight == 0 && unsettled.isEmpty() && draining == null && !retryScheduled && queuedTry < 0;
    }

    synchronized int unsettledCount() {
        return unsettled.size();
    }

    /** @return completes when every call is settled, or fails with the first that could not be */
    CompletableFuture<Void> drain() {
        CompletableFuture<Void> run;
        synchronized (this) {
            if (draining != null) {
                return draining;
            }
            if (unsettled.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            run = new CompletableFuture<>();
            draining = run;
        }
        settleNext(run);
        return run;
    }

    private void settleNext(CompletableFuture<Void> run) {
        Pending next;
        synchronized (this) {
            next = unsettled.peekFirst();
            if (next == null) {
                draining = null;
                retryMillis = FIRST_RETRY_MILLIS;
            }
        }
        if (next == null) {
            run.complete(null);
            whenIdle.accept(this);
            return;
        }
        settleOnce(next).whenComplete((ok, failure) -> {
            if (failure == null) {
                log.debug("settled {} of {}", next.what, hold);
                synchronized (this) {
                    unsettled.pollFirst();
                }
                settleNext(run);
            } else {
                long retryIn;
                synchronized (this) {
                    draining = null;
                    retryIn = retryMillis;
                    retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
                }
                drainSoon(retryIn);
                run.completeExceptionally(LockExceptions.settleFailed(next.what, hold, failure));
            }
        });
    }

    /** @return completes normally once Redis answered for good, whatever it said */
    private CompletableFuture<?> settleOnce(Pending next) {
        CompletableFuture<?> reply;
        try {
            reply = next.settle.get();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((ok, failure) -> {
            if (failure != null && !Failures.isOutcomeUnknown(failure) && !Failures.isPassingRefusal(failure)) {
                // Redis answered for good: whatever it said, retrying would not change it.
                log.warn("settling {} of {}: Redis refused it: {}", next.what, hold, failure.getMessage());
                return null;
            }
            if (failure != null) {
                throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
            }
            return ok;
        });
    }

    private void drainSoon(long delayMillis) {
        synchronized (this) {
            if (closed.getAsBoolean() || retryScheduled) {
                return;
            }
            retryScheduled = true;
        }
        try {
            timer.newTimeout(timeout -> {
                synchronized (this) {
                    retryScheduled = false;
                }
                if (!closed.getAsBoolean()) {
                    drain();
                }
                whenIdle.accept(this);
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException timerStopped) {
            synchronized (this) {
                retryScheduled = false;
            }
        }
    }

    private record Pending(String what, Supplier<CompletableFuture<?>> settle) {
    }
}
