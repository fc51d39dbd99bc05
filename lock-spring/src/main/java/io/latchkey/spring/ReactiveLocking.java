package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import org.jspecify.annotations.Nullable;

/**
 * {@link Locked @Locked} methods that return {@link Mono} or {@link Flux}: each subscription takes
 * the lock for an owner of its own, runs the method's publisher under it, and releases it before
 * passing on completion or error, or when cancelled. Nothing waits on a thread: the acquisition
 * and the release are the client's futures.
 *
 * <p>The only class of the starter that names Reactor's types. {@link LockedMethod} recognizes
 * these methods by the name of their return type, and the interceptor calls this class only for
 * them, so it is loaded only where Reactor is: the starter works without Reactor on the class
 * path. Stateless.
 */
final class ReactiveLocking {

    /** The interceptor's release: now, or put off by {@code lockAtLeastFor}. */
    @FunctionalInterface
    interface Release {
        /**
         * @param hold the hold to release
         * @param began when the method began, for {@code lockAtLeastFor}
         * @param ran whether the method ran: a hold granted to a subscriber that cancelled before is
         *     released at once, {@code lockAtLeastFor} or not
         * @return the release, completed at once if put off; never blocks
         */
        CompletableFuture<Void> release(LockHold hold, long began, boolean ran);
    }

    private ReactiveLocking() {
    }

    /**
     * @param invocation the call; its method returns {@code Mono} or {@code Flux}
     * @param locked the parsed annotation
     * @param lock the call's lock
     * @param owners a new owner for each subscription
     * @param clock when a method begins, for {@code lockAtLeastFor}
     * @param release the release of a hold
     * @return a publisher of the method's kind that runs it under the lock at each subscription
     */
    static Object invoke(MethodInvocation invocation, LockedMethod locked, DistributedLock lock, LongSupplier owners,
                         LongSupplier clock, Release release) {
        Flux<Object> guarded = Flux.defer(() -> subscribed(invocation, locked, lock, owners.getAsLong(), clock, release));
        return locked.returnsMono() ? guarded.singleOrEmpty() : guarded;
    }

    /**
     * A failure before the method could run (its lock's name, say), in the method's kind of
     * publisher: the interceptor reports it there rather than throwing it.
     *
     * @param locked the parsed annotation
     * @param failure what failed
     * @return a {@code Mono} or {@code Flux} that fails with it
     */
    static Object failed(LockedMethod locked, Throwable failure) {
        return locked.returnsMono() ? Mono.error(failure) : Flux.error(failure);
    }

    private static Flux<Object> subscribed(MethodInvocation invocation, LockedMethod locked, DistributedLock lock, long owner,
                                           LongSupplier clock, Release release) {
        Duration wait = locked.waitTime();
        CompletableFuture<Optional<LockHold>> attempt = locked.leaseTime() == null
                ? lock.tryAcquireAsync(wait, owner)
                : lock.tryAcquireAsync(wait, locked.leaseTime(), owner);
        Once once = new Once(release);
        // Cancel on the way is handled below, on the acquisition's own future: the future of a
        // stage derived from it would end while the acquisition went on to take the lock later.
        return Mono.fromFuture(attempt, true)
                .flatMapMany(acquired -> {
                    if (acquired.isEmpty()) {
                        return locked.skipsOnTimeout() ? Flux.empty()
                                : Flux.error(new LockNotAcquiredException(lock.getName(), wait, null));
                    }
                    LockHold hold = acquired.get();
                    once.began(hold, clock.getAsLong());
                    return Flux.<Object>from(body(invocation, hold))
                            .onErrorResume(failure -> Mono.fromFuture(once.release(hold), true)
                                    .onErrorResume(releaseFailure -> {
                                        failure.addSuppressed(unwrap(releaseFailure));
                                        return Mono.empty();
                                    })
                                    .then(Mono.error(failure)))
                            .concatWith(Mono.defer(() -> Mono.fromFuture(once.release(hold), true)).then(Mono.empty()));
                })
                .onErrorMap(CompletionException.class, ReactiveLocking::unwrap)
                .doFinally(signal -> {
                    if (signal == SignalType.CANCEL) {
                        // Gives up the wait, or gives back a grant that came as the cancel did;
                        // a hold the body had is released (once, whoever comes first).
                        attempt.cancel(false);
                        attempt.thenAccept(acquired -> acquired.ifPresent(once::releaseOnCancel));
                    }
                });
    }

    /** The method's publisher, made per subscription under the hold; what the method throws is its failure. */
    private static Publisher<?> body(MethodInvocation invocation, LockHold hold) {
        CurrentLock.enter(hold);
        try {
            // A clone for each subscription: a second proceed() of one invocation would skip the
            // advice after this one (@Transactional, say).
            Object returned = invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone().proceed()
                    : invocation.proceed();
            return returned == null ? Flux.empty() : (Publisher<?>) returned;
        } catch (Throwable t) {
            return Flux.error(t);
        } finally {
            CurrentLock.leave();
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** One subscription's release: done once, by completion, error or cancel, whichever comes first. */
    private static final class Once {

        private final Release release;
        private final AtomicBoolean done = new AtomicBoolean();
        /** Null until the method began. */
        private volatile @Nullable LockHold hold;
        private volatile long began;

        Once(Release release) {
            this.release = release;
        }

        void began(LockHold hold, long at) {
            this.began = at;
            this.hold = hold;
        }

        /** @param held the hold the method began under, as {@link #began} was told */
        CompletableFuture<Void> release(LockHold held) {
            return done.compareAndSet(false, true) ? release.release(held, began, true) : CompletableFuture.completedFuture(null);
        }

        /** @param granted the hold, which the method may not have begun under */
        void releaseOnCancel(LockHold granted) {
            if (done.compareAndSet(false, true)) {
                // a cancelled subscriber is told nothing; the release logs nothing either, as a
                // synchronous method's caller that went away would see nothing
                release.release(granted, began, hold != null).exceptionally(failure -> null);
            }
        }
    }
}
