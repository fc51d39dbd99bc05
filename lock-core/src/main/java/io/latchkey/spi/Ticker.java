package io.latchkey.spi;

/**
 * The client's clock for deadlines and elapsed time: monotonic nanoseconds, as
 * {@link System#nanoTime()} reads them, where only the difference of two readings means anything
 * (compare readings by {@code a - b > 0}, never by {@code a > b}). Every place that measures a
 * wait, a deadline or a lease's validity reads the ticker of its client instead of the system
 * clock, so that a test can move time by hand, together with a timer that fires when it says.
 * Lease expiry is Redis's own and never read here. The name and the shape are Caffeine's.
 * Implementations are thread-safe.
 */
@FunctionalInterface
public interface Ticker {

    /** @return nanoseconds since an arbitrary origin, fixed for the ticker's life */
    long read();

    /** @return the ticker of {@link System#nanoTime()}, which every client uses outside tests */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}

/** {@link System#nanoTime()}. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "Ticker.system()";
    }
}
