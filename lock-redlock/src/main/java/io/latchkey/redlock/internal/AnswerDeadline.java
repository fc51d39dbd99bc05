package io.latchkey.redlock.internal;

import io.latchkey.LockException;
import io.latchkey.spi.KindFailures;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bounds the wait for one master's answer with a timeout on that master's client timer.
 *
 * <p>Not {@link CompletableFuture#orTimeout}: that completes the future on the JDK's one
 * "CompletableFutureDelayScheduler" thread, shared by every library in the JVM, and whatever
 * depends on the answer (the quorum decision, then the caller's own callbacks) would run there.
 * Here the timer task only signals the timeout by completing the bounded copy; a Netty
 * {@link Timer} of the client's own runs it, as every other wait of a lock client does.
 */
final class AnswerDeadline {

    private AnswerDeadline() {
    }

    /**
     * @param reply the master's reply; left as it is, so that a late answer can still be acted on
     * @param timeoutNanos how long to wait for it; positive
     * @param timer the timer of the master's client
     * @param <T> the reply type
     * @return a copy of {@code reply} that fails with {@link TimeoutException} if it has not
     *     completed within {@code timeoutNanos}, or with a {@link LockException} at once if the
     *     timer has stopped (its client is closed)
     */
    static <T> CompletableFuture<T> bound(CompletableFuture<T> reply, long timeoutNanos, Timer timer) {
        CompletableFuture<T> answer = reply.copy();
        if (answer.isDone()) {
            return answer;
        }
        Timeout timeout;
        try {
            timeout = timer.newTimeout(expired -> answer.completeExceptionally(new TimeoutException()),
                    timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            answer.completeExceptionally(KindFailures.clientClosed());
            return answer;
        }
        answer.whenComplete((value, failure) -> timeout.cancel());
        return answer;
    }
}
