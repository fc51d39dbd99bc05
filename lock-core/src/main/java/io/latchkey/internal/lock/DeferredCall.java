package io.latchkey.internal.lock;

import io.netty.util.Timeout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A call of an owner admitted to its {@link CallLine} now and sent later: when it is due, or at
 * once when another call of the owner is admitted behind it (which must find it run), or never, if
 * the call admitted behind it stands for it ({@link GrantCalls#behindTakeOrSettleLater}): the
 * take of a grant that a release ends by its token before it went out. Exactly one of the two runs.
 * Thread-safe.
 */
final class DeferredCall {

    private static final int PENDING = 0;
    private static final int SENT = 1;
    private static final int CANCELLED = 2;

    private final AtomicInteger state = new AtomicInteger(PENDING);
    private final Runnable send;
    private final Runnable cancelled;
    private final CompletableFuture<?> reply;
    /** The timer's entry that sends it when due, cancelled once it is sent or cancelled. */
    private volatile @Nullable Timeout due;

    /**
     * @param send sends the call
     * @param cancelled what the call's admission comes to if it is never sent
     * @param reply completes with the call's reply, or as {@code cancelled} completes it
     */
    DeferredCall(Runnable send, Runnable cancelled, CompletableFuture<?> reply) {
        this.send = send;
        this.cancelled = cancelled;
        this.reply = reply;
    }

    /** @param timeout the timer's entry that sends it when due */
    void dueBy(Timeout timeout) {
        due = timeout;
        if (state.get() != PENDING) {
            timeout.cancel();
        }
    }

    /** Sends the call, unless it was sent or cancelled. */
    void sendNow() {
        if (state.compareAndSet(PENDING, SENT)) {
            stopTimer();
            send.run();
        }
    }

    /** Cancels the call, unless it was sent: then its reply comes as for any call. */
    void cancel() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            stopTimer();
            cancelled.run();
        }
    }

    /** @return completes once the call is answered, or failed, or cancelled */
    CompletableFuture<?> reply() {
        return reply;
    }

    private void stopTimer() {
        Timeout timeout = due;
        if (timeout != null) {
            timeout.cancel();
        }
    }
}
