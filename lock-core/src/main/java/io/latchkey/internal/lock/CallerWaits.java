package io.latchkey.internal.lock;

import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * How a blocking facade waits on a future of the async core, the same for every kind's facade
 * (every {@link Acquisition}, and a lock's or semaphore's round trips): the interrupt semantics of
 * {@code Lock.lock()}, clean-up that an interrupt cannot cut short, and failures rethrown on the
 * caller's thread with their type kept. Stateless.
 */
final class CallerWaits {

    private CallerWaits() {
    }

    /**
     * Waits without giving up on an interrupt, which it re-asserts on return; for calls bounded
     * otherwise (a round trip by the command timeout, {@code lock()} by nothing at all).
     *
     * @param name the lock's name, for the rethrown exception
     * @param future what to wait for
     * @param <T> its result type
     * @return its result
     * @throws RuntimeException what it failed with, rethrown on the caller's thread
     */
    static <T> T await(String name, CompletableFuture<T> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(name, e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * For clean-up after an interrupt: returning early could leave a hold, a part or a queue
     * entry behind. The caller throws {@code InterruptedException} next, which clears the flag,
     * so the flag is not re-asserted; a failure of the clean-up is the clean-up's to report.
     *
     * @param future the clean-up
     */
    static void awaitUninterruptibly(CompletableFuture<?> future) {
        while (true) {
            try {
                future.get();
                return;
            } catch (InterruptedException e) {
                // keep cleaning up
            } catch (ExecutionException e) {
                return;
            }
        }
    }

    /**
     * Rethrows on the caller's thread, so its stack trace shows where the caller was; the
     * exception keeps its type (a {@code LockTimeoutException} stays one).
     *
     * @param name the lock's name
     * @param e how a future failed
     * @return the exception to throw
     */
    static RuntimeException rethrow(String name, ExecutionException e) {
        Throwable cause = Failures.unwrap(e);
        if (cause instanceof Error error) {
            throw error;
        }
        return LockExceptions.onCallerThread(name, cause);
    }
}
