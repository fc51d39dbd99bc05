package io.latchkey.internal.lock;

import io.latchkey.internal.redis.Failures;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One running acquisition, started for an owner with a lease and a wait: the grant it ends with,
 * and a cancel that says when nothing of it is left. A {@link java.util.concurrent.Future#cancel}
 * of the result cannot say that, and an interrupted caller must not return while what it gave up
 * may still be granted. How a caller waits for one is here too, the same for every kind: an async
 * caller behind a future of its own, a blocking one with the interrupt semantics of
 * {@code Lock}. Implementations are thread-safe.
 *
 * @param <H> what a grant gives
 */
public interface Acquisition<H> {

    /**
     * @return the grant once acquired; null when the wait ran out, after cleaning up; fails with
     *     the acquisition's failure
     */
    CompletableFuture<H> result();

    /**
     * Gives up the acquisition: stops its wait, or, if it was granted, gives the grant back (once,
     * however often it is called).
     *
     * @return completes when nothing of it is left, in Redis or in the client
     */
    CompletableFuture<Void> cancel();

    /**
     * An acquisition made of its two halves.
     *
     * @param result the grant once acquired, null when the wait ran out
     * @param cancel as {@link #cancel()}
     * @param <H> what a grant gives
     * @return the acquisition
     */
    static <H> Acquisition<H> of(CompletableFuture<H> result, Supplier<CompletableFuture<Void>> cancel) {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(cancel, "cancel");
        return new Acquisition<>() {
            @Override
            public CompletableFuture<H> result() {
                return result;
            }

            @Override
            public CompletableFuture<Void> cancel() {
                return cancel.get();
            }
        };
    }

    /**
     * This acquisition behind a future of the caller's own, so that cancelling that future (or
     * completing it from outside) gives the acquisition up and gives back a grant it may have won
     * meanwhile.
     *
     * @param outcome what the caller gets from the grant, or from null if the wait ran out
     * @param <T> the caller's result type
     * @return the caller's future
     */
    default <T> CompletableFuture<T> forCaller(Function<? super H, ? extends T> outcome) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        result().whenComplete((hold, failure) -> {
            if (failure != null) {
                caller.completeExceptionally(Failures.unwrap(failure));
            } else if (!caller.complete(outcome.apply(hold)) && hold != null) {
                // The caller's future was completed from outside (orTimeout, complete) just as the
                // grant arrived: the caller will never know it holds the lock, so give it back.
                cancel();
            }
        });
        caller.whenComplete((value, failure) -> {
            if (!result().isDone() || caller.isCancelled()) {
                cancel();
            }
        });
        return caller;
    }

    /**
     * Waits on the calling thread; an interrupt gives the acquisition up, and returns only once
     * nothing of it is left (a grant that came meanwhile is given back), then throws.
     *
     * @param name the lock's name, for a rethrown failure
     * @return the grant, or null if the wait ran out
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    default H awaitInterruptibly(String name) throws InterruptedException {
        try {
            return result().get();
        } catch (InterruptedException e) {
            CallerWaits.awaitUninterruptibly(cancel());
            throw e;
        } catch (ExecutionException e) {
            throw CallerWaits.rethrow(name, e);
        }
    }
}
