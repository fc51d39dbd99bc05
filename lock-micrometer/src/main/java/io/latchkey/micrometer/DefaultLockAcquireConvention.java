package io.latchkey.micrometer;

import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The acquisition's observation {@value #NAME}: low-cardinality {@code kind} and, at its end,
 * {@code outcome} ({@code acquired}, {@code timed_out}, {@code interrupted}, {@code failed}); the
 * high-cardinality {@code name}, the lock's name, only when {@link LockObservationContext#isLockNameIncluded()}.
 * The contextual name (a span's name) is {@code "acquire <kind> lock"}.
 *
 * <p>The name is not {@code latchkey.lock.acquire}, the timer of {@link MicrometerLockEvents}: a
 * meter handler (Spring Boot's) makes a timer of each observation, under its name and with its
 * low-cardinality key values and {@code error}; one meter name with two sets of tag keys is
 * refused by Prometheus.
 *
 * <p>Extend it to add or change key values; stateless and thread-safe.
 */
public class DefaultLockAcquireConvention implements LockAcquireConvention {

    /** The observation's name. */
    public static final String NAME = "latchkey.lock.acquisition";

    /** Made by {@link LockObservations}, or by a subclass. */
    public DefaultLockAcquireConvention() {
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockAcquireContext context) {
        return "acquire " + context.getKind() + " lock";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
        KeyValues kind = KeyValues.of("kind", context.getKind());
        // No outcome at the start rather than a made-up one: a meter started then (Boot's long
        // task timer NAME.active) has its own name, so its tag keys may differ from the timer's.
        return context.getOutcome() == null ? kind
                : kind.and("outcome", context.getOutcome().name().toLowerCase(Locale.ROOT));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockAcquireContext context) {
        return context.isLockNameIncluded() ? KeyValues.of("name", context.getLockName()) : KeyValues.empty();
    }
}
