package io.latchkey.faults;

/**
 * What a {@link FaultWorker} reports to the harness, one line each: the code, then the detail.
 */
enum WorkerEvent {
    /** The worker is connected and starts its threads. */
    READY("R"),
    /** A hold was granted; detail: the wait in microseconds. */
    ACQUIRED("A"),
    /** A holder entered its critical section; detail: holders already inside, and the write outcome. */
    INSIDE("I"),
    /** A holder left its critical section. */
    OUTSIDE("O"),
    /** {@code tryAcquire} returned empty: its wait ended before the lock was free. */
    GAVE_UP("T"),
    /** A lock call threw a {@code LockException}; detail: the {@link LockCall}'s code, the type, the message. */
    EXCEPTION("E"),
    /** Releasing found the lease lost ({@code LeaseLostException}). */
    LEASE_LOST("L"),
    /** A call to the checker Redis failed; detail: the exception. The harness's fault, not the lock's. */
    CHECKER_FAILED("X");

    final String code;

    WorkerEvent(String code) {
        this.code = code;
    }

    /** @return the event a line reports, or null for a line that is not an event (say, a log line) */
    static WorkerEvent of(String line) {
        int end = line.indexOf(' ');
        String code = end < 0 ? line : line.substring(0, end);
        for (WorkerEvent event : values()) {
            if (event.code.equals(code)) {
                return event;
            }
        }
        return null;
    }
}
