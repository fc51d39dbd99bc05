package io.latchkey.internal.events;

import io.latchkey.LockEventListener;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's {@link LockEventListener}, as the machinery calls it: a listener that throws is
 * logged and ignored. Callers check {@link #enabled()} before they build an event or read the
 * clock for one, so a client without a listener pays one field read per place that could tell
 * of something. Thread-safe.
 */
public final class LockEvents {

    private static final Logger log = LoggerFactory.getLogger(LockEvents.class);

    /** Tells nothing: the events of a client without a listener. */
    public static final LockEvents NONE = new LockEvents(LockEventListener.NONE);

    private final LockEventListener listener;
    private final boolean enabled;

    private LockEvents(LockEventListener listener) {
        this.listener = listener;
        this.enabled = listener != LockEventListener.NONE;
    }

    /**
     * @param listener the client's listener, {@link LockEventListener#NONE} for none
     * @return the events that go to it; {@link #NONE} for the no-op listener
     */
    public static LockEvents of(LockEventListener listener) {
        Objects.requireNonNull(listener, "listener");
        return listener == LockEventListener.NONE ? NONE : new LockEvents(listener);
    }

    /** @return true if a listener is set: only then may a caller build an event */
    public boolean enabled() {
        return enabled;
    }

    /** @param event an acquisition started */
    public void acquireStarted(LockEventListener.AcquireStarted event) {
        tell(listener::acquireStarted, event);
    }

    /** @param event an acquisition ended */
    public void acquireEnded(LockEventListener.AcquireEnded event) {
        tell(listener::acquireEnded, event);
    }

    /** @param event a hold ended */
    public void released(LockEventListener.Released event) {
        tell(listener::released, event);
    }

    /** @param event a renewal round trip */
    public void renewed(LockEventListener.Renewal event) {
        tell(listener::renewed, event);
    }

    /** @param event a lease was lost */
    public void leaseLost(LockEventListener.LeaseLost event) {
        tell(listener::leaseLost, event);
    }

    /** @param event a local hand-off */
    public void handedOff(LockEventListener.HandedOff event) {
        tell(listener::handedOff, event);
    }

    /**
     * @param fromNanos a reading of the client's ticker
     * @param toNanos a later one
     * @return the time between them, never negative
     */
    public static Duration between(long fromNanos, long toNanos) {
        return Duration.ofNanos(Math.max(0, toNanos - fromNanos));
    }

    private <E> void tell(Consumer<E> method, E event) {
        try {
            method.accept(event);
        } catch (RuntimeException | LinkageError e) {
            // The lock's own work must go on: a metrics bug is no reason to lose a hold.
            log.warn("LockEventListener {} threw on {}; ignored", listener, event, e);
        }
    }

    @Override
    public String toString() {
        return "LockEvents{" + listener + '}';
    }
}
