package io.latchkey.micrometer;

import io.latchkey.LockEventListener.AcquireOutcome;
import org.jspecify.annotations.Nullable;

/**
 * An acquisition, from its {@code AcquireStarted} to its {@code AcquireEnded}: re-entries too.
 * Not thread-safe (see {@link LockObservationContext}).
 */
public final class LockAcquireContext extends LockObservationContext {

    private @Nullable AcquireOutcome outcome;

    LockAcquireContext(String lockName, String kind, long ownerId, boolean lockNameIncluded) {
        super(lockName, kind, ownerId, lockNameIncluded);
    }

    /** {@return how the acquisition ended; null while it is under way (at the observation's start)} */
    public @Nullable AcquireOutcome getOutcome() {
        return outcome;
    }

    void setOutcome(AcquireOutcome outcome) {
        this.outcome = outcome;
    }
}
