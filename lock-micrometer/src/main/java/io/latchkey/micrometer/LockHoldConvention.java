package io.latchkey.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names a hold's observation and its key values. Implement it (or extend
 * {@link DefaultLockHoldConvention}) and pass it to {@link LockObservations.Builder#holdConvention},
 * or register one as a {@code GlobalObservationConvention<LockHoldContext>}, which applies when
 * none is passed.
 */
public interface LockHoldConvention extends ObservationConvention<LockHoldContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockHoldContext;
    }
}
