package io.latchkey.spring;

import io.latchkey.LockEventListener;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every listener bean of the application, in their order; one that throws is logged and
 * skipped, so the next is still told. The client guards only the composite as a whole: without
 * this, a throwing meters listener would keep an acquisition's end from the observations
 * listener, whose observation would then stay open. Immutable.
 */
final class CompositeLockEventListener implements LockEventListener {

    private static final Logger log = LoggerFactory.getLogger(CompositeLockEventListener.class);

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
        tellEach(LockEventListener::acquireStarted, event);
    }

    @Override
    public void acquireEnded(AcquireEnded event) {
        tellEach(LockEventListener::acquireEnded, event);
    }

    @Override
    public void released(Released event) {
        tellEach(LockEventListener::released, event);
    }

    @Override
    public void renewed(Renewal event) {
        tellEach(LockEventListener::renewed, event);
    }

    @Override
    public void leaseLost(LeaseLost event) {
        tellEach(LockEventListener::leaseLost, event);
    }

    @Override
    public void handedOff(HandedOff event) {
        tellEach(LockEventListener::handedOff, event);
    }

    private <E> void tellEach(BiConsumer<LockEventListener, E> method, E event) {
        for (LockEventListener listener : listeners) {
            try {
                method.accept(listener, event);
            } catch (RuntimeException | LinkageError e) {
                log.warn("LockEventListener {} threw on {}; ignored", listener, event, e);
            }
        }
    }

    @Override
    public String toString() {
        return "CompositeLockEventListener" + listeners;
    }
}
