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

/**
 * Runs {@link Locked @Locked} methods under their lock: acquire, call, release in
 * {@code finally}; for asynchronous methods, release when the returned future completes.
 * Thread-safe.
 */
final class LockedInterceptor implements MethodInterceptor {

    /**
     * Owners of asynchronous calls: far above any thread id, so a call's hold is its own and
     * never a re-entry of the thread that made it.
     */
    private static final AtomicLong ASYNC_OWNERS = new AtomicLong(1L << 62);

    private final Supplier<LockClient> client;
    private final LockedMethods methods;

    /**
     * @param client the application's client, looked up at the first call
     * @param methods the locked methods, parsed as they are first needed
     */
    LockedInterceptor(Supplier<LockClient> client, LockedMethods methods) {
        this.client = client;
        this.methods = methods;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        LockedMethod locked = methods.get(invocation.getMethod(), targetClass);
        return locked.async() ? invokeAsync(invocation, locked) : invokeBlocking(invocation, locked);
    }

    private DistributedLock lockFor(MethodInvocation invocation, LockedMethod locked) {
        return locked.lock(client.get(), locked.lockName(invocation.getThis(), invocation.getArguments()));
    }

    private Object invokeBlocking(MethodInvocation invocation, LockedMethod locked) throws Throwable {
        DistributedLock lock = lockFor(invocation, locked);
        Optional<LockHold> acquired;
        try {
            acquired = locked.leaseTime() == null ? lock.tryAcquire(locked.waitTime())
                    : lock.tryAcquire(locked.waitTime(), locked.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(lock.getName(), locked.waitTime(), e);
        }
        if (acquired.isEmpty()) {
            if (locked.skipsOnTimeout()) {
                return locked.skipped();
            }
            throw new LockNotAcquiredException(lock.getName(), locked.waitTime(), null);
        }
        LockHold hold = acquired.get();
        CurrentLock.enter(hold);
        Throwable failure = null;
        try {
            return invocation.proceed();
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            CurrentLock.leave();
            release(hold, failure);
        }
    }

    /** Closes the hold; a failure to release is thrown, or added to the method's own failure. */
    private static void release(LockHold hold, Throwable failure) {
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
    private Object invokeAsync(MethodInvocation invocation, LockedMethod locked) throws Throwable {
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
        CurrentLock.enter(acquired.get());
        Object returned;
        try {
            returned = invocation.proceed();
        } catch (Throwable t) {
            lock.unlockAsync(owner).whenComplete((ok, releaseFailure) -> {
                if (releaseFailure != null) {
                    t.addSuppressed(unwrap(releaseFailure));
                }
            }).exceptionally(ignored -> null).join();
            throw t;
        } finally {
            CurrentLock.leave();
        }
        if (returned == null) {
            lock.unlockAsync(owner).join();
            return null;
        }
        CompletableFuture<Object> released = new CompletableFuture<>();
        ((CompletionStage<?>) returned).whenComplete((value, failure) ->
                lock.unlockAsync(owner).whenComplete((ok, releaseFailure) -> {
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

    private static RuntimeException asRuntime(Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        return failure instanceof RuntimeException runtime ? runtime
                : failure instanceof CancellationException cancelled ? cancelled
                : new CompletionException(failure);
    }
}
