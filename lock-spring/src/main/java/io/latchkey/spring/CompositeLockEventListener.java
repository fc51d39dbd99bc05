package io.latchkey.spring;

import io.latchkey.LockEventListener;
import java.util.List;

/**
 * Tells every listener bean of the application, in their order; each is guarded by the client
 * (one that throws is logged and skipped by the client, so the next is still told). Immutable.
 */
final class CompositeLockEventListener implements LockEventListener {

    private final List<LockEventListener> listeners;

    private CompositeLockEventListener(List<LockEventListener> listeners) {
        this.listeners = listeners;
    }

    /** {@return {@link LockEventListener#NONE} for none, the one listener, or one that tells all} */
    static LockEventListener of(List<LockEventListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> LockEventListener.NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeLockEventListener(List.copyOf(listeners));
        };
    }

    @Override
    public void acquireStarted(AcquireStarted event) {
        listeners.forEach(listener -> listener.acquireStarted(event));
    }

    @Override
    public void acquireEnded(AcquireEnded event) {
        listeners.forEach(listener -> listener.acquireEnded(event));
    }

    @Override
    public void released(Released event) {
        listeners.forEach(listener -> listener.released(event));
    }

    @Override
    public void renewed(Renewal event) {
        listeners.forEach(listener -> listener.renewed(event));
    }

    @Override
    public void leaseLost(LeaseLost event) {
        listeners.forEach(listener -> listener.leaseLost(event));
    }

    @Override
    public void handedOff(HandedOff event) {
        listeners.forEach(listener -> listener.handedOff(event));
    }

    @Override
    public String toString() {
        return "CompositeLockEventListener" + listeners;
    }
}
