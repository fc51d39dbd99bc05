package io.latchkey.internal.redis;

import io.latchkey.spi.Ticker;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Makes a call again, after a pause on the client's timer that doubles up to a limit, while it
 * fails in a passing way and its deadline leaves room for the pause. No thread waits: each try
 * starts from the timer, and the returned future completes with the last try's outcome.
 */
public final class Retries {

    private final Timer timer;
    private final Ticker ticker;
    private final long firstPauseMillis;
    private final long maxPauseMillis;

    /**
     * @param timer the client's timer, which starts the tries after the first
     * @param ticker the clock of the deadline
     * @param firstPauseMillis the pause before the second try
     * @param maxPauseMillis the longest pause, which doubling reaches
     */
    public Retries(Timer timer, Ticker ticker, long firstPauseMillis, long maxPauseMillis) {
        this.timer = timer;
        this.ticker = ticker;
        this.firstPauseMillis = firstPauseMillis;
        this.maxPauseMillis = maxPauseMillis;
    }

    /**
     * @param call makes one try
     * @param passing which failures are worth another try
     * @param deadlineNanos the ticker's time after which no try starts
     * @param <T> the reply type
     * @return the first successful try's reply, else the last try's failure; also that failure
     *     if the timer stopped (the client closes)
     */
    public <T> CompletableFuture<T> until(Supplier<CompletableFuture<T>> call, Predicate<Throwable> passing, long deadlineNanos) {
        return attempt(call, passing, deadlineNanos, firstPauseMillis);
    }

    /**
     * The same tries for a blocking call, on the caller's thread (LockClient.create connecting):
     * between two tries the caller waits for a pause that the timer ends.
     *
     * @param call makes one try, blocking
     * @param passing which failures are worth another try
     * @param deadlineNanos the ticker's time after which no try starts
     * @param <T> the reply type
     * @return the first successful try's reply
     * @throws RuntimeException the last try's failure; also the last failure if the timer stopped
     */
    public <T> T blocking(Supplier<T> call, Predicate<Throwable> passing, long deadlineNanos) {
        long pauseMillis = firstPauseMillis;
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException failure) {
                if (!passing.test(failure) || ticker.read() + TimeUnit.MILLISECONDS.toNanos(pauseMillis) - deadlineNanos > 0) {
                    throw failure;
                }
                CompletableFuture<Void> pause = new CompletableFuture<>();
                try {
                    timer.newTimeout(due -> pause.complete(null), pauseMillis, TimeUnit.MILLISECONDS);
                } catch (IllegalStateException clientClosing) {
                    throw failure;
                }
                pause.join();
                pauseMillis = Math.min(pauseMillis * 2, maxPauseMillis);
            }
        }
    }

    private <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> call, Predicate<Throwable> passing,
                                             long deadlineNanos, long pauseMillis) {
        return call.get().handle((reply, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(reply);
            }
            if (!passing.test(failure) || ticker.read() + TimeUnit.MILLISECONDS.toNanos(pauseMillis) - deadlineNanos > 0) {
                return CompletableFuture.<T>failedFuture(failure);
            }
            CompletableFuture<T> retried = new CompletableFuture<>();
            try {
                timer.newTimeout(due -> attempt(call, passing, deadlineNanos, Math.min(pauseMillis * 2, maxPauseMillis))
                        .whenComplete((again, againFailure) -> {
                            if (againFailure == null) {
                                retried.complete(again);
                            } else {
                                retried.completeExceptionally(againFailure);
                            }
                        }), pauseMillis, TimeUnit.MILLISECONDS);
            } catch (IllegalStateException clientClosing) {
                return CompletableFuture.<T>failedFuture(failure);
            }
            return retried;
        }).thenCompose(Function.identity());
    }
}
