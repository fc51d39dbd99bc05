package io.latchkey.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names an acquisition's observation and its key values. Implement it (or extend
 * {@link DefaultLockAcquireConvention}) and pass it to {@link LockObservations.Builder#acquireConvention},
 * or register one as a {@code GlobalObservationConvention<LockAcquireContext>}, which applies when
 * none is passed.
 */
public interface LockAcquireConvention extends ObservationConvention<LockAcquireContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockAcquireContext;
    }
}
