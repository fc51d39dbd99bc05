package io.latchkey.internal.lock;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A call of an owner admitted to its {@link CallLine} now and sent later: when it is due, or at
 * once when another call of the owner is admitted behind it (which must find it run), or never, if
 * the call admitted behind it stands for it ({@link UnsettledCalls#behindTakeOrSettleLater}): the
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

    /**
     * @param send sends the call
     * @param cancelled what the call's admission comes to if it is never sent
     */
    DeferredCall(Runnable send, Runnable cancelled) {
        this.send = send;
        this.cancelled = cancelled;
    }

    /** Sends the call, unless it was sent or cancelled. */
    void sendNow() {
        if (state.compareAndSet(PENDING, SENT)) {
            send.run();
        }
    }

    /** @return true if the call will never be sent: cancelled now, or before */
    boolean cancel() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            cancelled.run();
            return true;
        }
        return state.get() == CANCELLED;
    }
}
