package io.latchkey.faults;

/**
 * The lock calls a {@link FaultWorker} makes, which the harness counts exceptions of separately:
 * only a {@code tryAcquire} whose wait outlives the outage is promised to ride it out (the
 * README's "A short outage during a wait"), unless the wait was over when it threw;
 * {@code acquire()} and a zero wait keep the bound of one command timeout, and a release is never
 * tried again.
 */
enum LockCall {
    /** {@code tryAcquire(wait)} with {@code --wait}, longer than every outage the harness makes. */
    WAIT("w", "tryAcquire(wait)"),
    /**
     * A {@code tryAcquire(wait)} that threw only once its whole wait had passed: Redis was still
     * unreachable at the wait's end, which a caller who had waited most of its wait before the
     * outage began may meet. The contract allows it, so it counts with the bounded calls.
     */
    WAIT_OVER("x", "tryAcquire(wait) at its end"),
    /** {@code acquire()}, as {@code lock()}: waits without a bound, but Redis failures end it. */
    LOCK("l", "acquire()"),
    /** {@code tryAcquire(0)}: one try. */
    ZERO_WAIT("z", "tryAcquire(0)"),
    /** {@code LockHold.close()}, as {@code unlock()}. */
    RELEASE("r", "close()");

    final String code;
    final String label;

    LockCall(String code, String label) {
        this.code = code;
        this.label = label;
    }

    /** @return the call a worker's code names */
    static LockCall of(String code) {
        for (LockCall call : values()) {
            if (call.code.equals(code)) {
                return call;
            }
        }
        throw new IllegalArgumentException("no lock call coded " + code);
    }
}
