package io.latchkey.internal.time;

import io.latchkey.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when a test moves it: by {@link #advance}, or by the
 * {@link ManualTimer} that owns it, which fires its timeouts as their time comes. Thread-safe.
 */
public final class ManualTicker implements Ticker {

    private final AtomicLong nanos;

    /** Starts at zero. */
    public ManualTicker() {
        this(0);
    }

    /**
     * @param originNanos the first reading; any value, since only differences count: one close to
     *     {@link Long#MAX_VALUE} checks that deadlines past the wrap-around still work
     */
    public ManualTicker(long originNanos) {
        this.nanos = new AtomicLong(originNanos);
    }

    @Override
    public long read() {
        return nanos.get();
    }

    /**
     * Moves time forward; fires no timer. To move a {@link ManualTimer}'s time, use its
     * {@code advance}, which fires what falls due.
     *
     * @param amount how far, not negative
     */
    public void advance(Duration amount) {
        advance(amount.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * @param amount how far, not negative
     * @param unit the unit of {@code amount}
     */
    public void advance(long amount, TimeUnit unit) {
        if (amount < 0) {
            throw new IllegalArgumentException("time only moves forward: " + amount + " " + unit);
        }
        nanos.addAndGet(unit.toNanos(amount));
    }

    /** Sets the reading, for the timer, which never moves it back. */
    void set(long readingNanos) {
        nanos.set(readingNanos);
    }

    @Override
    public String toString() {
        return "ManualTicker{" + nanos.get() + " ns}";
    }
}
