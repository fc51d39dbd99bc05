package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHold;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@link Locked @Locked} methods under their lock: acquire, call, release in
 * {@code finally}; for asynchronous methods, release when the returned future completes; with
 * {@link Locked#lockAtLeastFor()}, release then or, if sooner, when that time has passed since the
 * method began ({@link DeferredReleases}). Thread-safe.
 */
final class LockedInterceptor implements MethodInterceptor {

    /**
     * Owners of asynchronous calls and of calls whose release is put off: far above any thread
     * id, so a call's hold is its own and never a re-entry of the thread that made it.
     */
    private static final AtomicLong ASYNC_OWNERS = new AtomicLong(1L << 62);

    private final Supplier<LockClient> client;
    private final LockedMethods methods;
    private final Supplier<DeferredReleases> releases;

    /**
     * @param client the application's client, looked up at the first call
     * @param methods the locked methods, parsed as they are first needed
     * @param releases the releases put off by {@code lockAtLeastFor}, looked up at the first such call
     */
    LockedInterceptor(Supplier<LockClient> client, LockedMethods methods, Supplier<DeferredReleases> releases) {
        this.client = client;
        this.methods = methods;
        this.releases = releases;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        LockedMethod locked = methods.get(invocation.getMethod(), targetClass);
        if (locked.reactive()) {
            return invokeReactive(invocation, locked);
        }
        return locked.async() ? invokeAsync(invocation, locked) : invokeBlocking(invocation, locked);
    }

    /**
     * Runs a method returning {@code Mono} or {@code Flux} ({@link ReactiveLocking}, loaded only
     * then): each subscription acquires for an owner of its own; a name that cannot be made fails
     * the publisher.
     */
    private Object invokeReactive(MethodInvocation invocation, LockedMethod locked) {
        DistributedLock lock;
        try {
            lock = lockFor(invocation, locked);
        } catch (RuntimeException e) {
            return ReactiveLocking.failed(locked, e);
        }
        return ReactiveLocking.invoke(invocation, locked, lock, ASYNC_OWNERS::incrementAndGet, () -> began(locked),
                (hold, began, ran) -> ran ? releaseAsync(locked, lock, hold, began) : lock.unlockAsync(hold.ownerId()));
    }

    private DistributedLock lockFor(MethodInvocation invocation, LockedMethod locked) {
        return locked.lock(client.get(), locked.lockName(invocation.getThis(), invocation.getArguments()));
    }

    private @Nullable Object invokeBlocking(MethodInvocation invocation, LockedMethod locked) throws Throwable {
        DistributedLock lock = lockFor(invocation, locked);
        Optional<LockHold> acquired;
        if (locked.lockAtLeastFor() != null) {
            // The call's own owner: the thread goes on after the method while the hold waits for
            // its release, and its next call must be excluded like any other, not re-enter.
            acquired = acquireForCall(locked, lock, ASYNC_OWNERS.incrementAndGet());
        } else {
            try {
                acquired = locked.leaseTime() == null ? lock.tryAcquire(locked.waitTime())
                        : lock.tryAcquire(locked.waitTime(), locked.leaseTime());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockNotAcquiredException(lock.getName(), locked.waitTime(), e);
            }
        }
        if (acquired.isEmpty()) {
            if (locked.skipsOnTimeout()) {
                return locked.skipped();
            }
            throw new LockNotAcquiredException(lock.getName(), locked.waitTime(), null);
        }
        LockHold hold = acquired.get();
        long began = began(locked);
        CurrentLock.enter(hold);
        Throwable failure = null;
        try {
            return invocation.proceed();
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            CurrentLock.leave();
            if (!releasedLater(locked, lock, hold, began)) {
                release(hold, failure);
            }
        }
    }

    /** {@return when the method begins, for {@code lockAtLeastFor}; 0 without it} */
    private long began(LockedMethod locked) {
        return locked.lockAtLeastFor() == null ? 0 : releases.get().now();
    }

    /**
     * Puts the release off until {@code lockAtLeastFor} after {@code began}, unless the method has
     * none, that time has passed, or the hold is no longer valid: a lost lease is reported by the
     * release now, as without {@code lockAtLeastFor}. Never blocks: this may run on an I/O thread.
     *
     * @return true if the release was put off; false if the caller must release now
     */
    private boolean releasedLater(LockedMethod locked, DistributedLock lock, LockHold hold, long began) {
        Duration atLeast = locked.lockAtLeastFor();
        if (atLeast == null || !hold.isValid()) {
            return false;
        }
        long owner = hold.ownerId();
        return releases.get().releaseAt(began + atLeast.toNanos(), lock.getName(), () -> lock.unlockAsync(owner));
    }

    /** {@return the release of an asynchronous call's hold: done now, or put off (then completed at once)} */
    private CompletableFuture<Void> releaseAsync(LockedMethod locked, DistributedLock lock, LockHold hold, long began) {
        return releasedLater(locked, lock, hold, began) ? CompletableFuture.completedFuture(null) : lock.unlockAsync(hold.ownerId());
    }

    /** Closes the hold; a failure to release is thrown, or added to the method's own failure. */
    private static void release(LockHold hold, @Nullable Throwable failure) {
        try {
            hold.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    /**
     * Runs an asynchronous method: whatever keeps it from running (a name that cannot be made,
     * the lock not obtained in time, an interrupt, Redis failing) fails the future it returns,
     * where its callers look for its failures; only what the method itself throws is thrown.
     */
    private @Nullable Object invokeAsync(MethodInvocation invocation, LockedMethod locked) throws Throwable {
        long owner = ASYNC_OWNERS.incrementAndGet();
        DistributedLock lock;
        Optional<LockHold> acquired;
        try {
            lock = lockFor(invocation, locked);
            acquired = acquireForCall(locked, lock, owner);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (acquired.isEmpty()) {
            return locked.skipsOnTimeout() ? locked.skipped()
                    : CompletableFuture.failedFuture(new LockNotAcquiredException(lock.getName(), locked.waitTime(), null));
        }
        LockHold hold = acquired.get();
        long began = began(locked);
        CurrentLock.enter(hold);
        Object returned;
        try {
            returned = invocation.proceed();
        } catch (Throwable t) {
            releaseAsync(locked, lock, hold, began).whenComplete((ok, releaseFailure) -> {
                if (releaseFailure != null) {
                    t.addSuppressed(unwrap(releaseFailure));
                }
            }).exceptionally(ignored -> null).join();
            throw t;
        } finally {
            CurrentLock.leave();
        }
        if (returned == null) {
            releaseAsync(locked, lock, hold, began).join();
            return null;
        }
        CompletableFuture<Object> released = new CompletableFuture<>();
        ((CompletionStage<?>) returned).whenComplete((value, failure) ->
                releaseAsync(locked, lock, hold, began).whenComplete((ok, releaseFailure) -> {
                    if (failure != null) {
                        if (releaseFailure != null) {
                            failure.addSuppressed(unwrap(releaseFailure));
                        }
                        released.completeExceptionally(failure);
                    } else if (releaseFailure != null) {
                        released.completeExceptionally(unwrap(releaseFailure));
                    } else {
                        released.complete(value);
                    }
                }));
        return released;
    }

    /**
     * Acquires for one asynchronous call, waiting on the calling thread. The acquisition bounds its
     * own wait, for the watchdog lease as for a fixed one, and ends it with nothing left behind;
     * a bound of ours on a stage derived from it would end the stage while the acquisition went
     * on, to take the lock later for an owner that nothing releases.
     */
    private static Optional<LockHold> acquireForCall(LockedMethod locked, DistributedLock lock, long owner) {
        Duration wait = locked.waitTime();
        CompletableFuture<Optional<LockHold>> attempt = locked.leaseTime() == null
                ? lock.tryAcquireAsync(wait, owner)
                : lock.tryAcquireAsync(wait, locked.leaseTime(), owner);
        try {
            return attempt.get();
        } catch (InterruptedException e) {
            // The acquisition's own future: its cancel gives up the wait, or gives back a grant
            // that came as the interrupt did.
            attempt.cancel(false);
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(lock.getName(), wait, e);
        } catch (ExecutionException e) {
            throw asRuntime(e.getCause());
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException || failure instanceof ExecutionException) && failure.getCause() != null
                ? failure.getCause() : failure;
    }

    private static RuntimeException asRuntime(@Nullable Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        return failure instanceof RuntimeException runtime ? runtime
                : failure instanceof CancellationException cancelled ? cancelled
                : new CompletionException(failure);
    }
}
