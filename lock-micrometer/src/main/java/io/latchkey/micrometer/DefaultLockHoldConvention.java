package io.latchkey.micrometer;

import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The hold's observation {@value #NAME}: low-cardinality {@code kind} and, at its end,
 * {@code outcome} ({@code released} or {@code lost}); the high-cardinality {@code name}, the
 * lock's name, only when {@link LockObservationContext#isLockNameIncluded()}. The contextual name
 * (a span's name) is {@code "hold <kind> lock"}.
 *
 * <p>A meter handler's timer of it ({@value #NAME}, and {@code latchkey.lock.hold.active}) does
 * not share a name with {@link MicrometerLockEvents}' meters, whose hold meter is {@code latchkey.lock.held}.
 *
 * <p>Extend it to add or change key values; stateless and thread-safe.
 */
public class DefaultLockHoldConvention implements LockHoldConvention {

    /** The observation's name. */
    public static final String NAME = "latchkey.lock.hold";

    /** Made by {@link LockObservations}, or by a subclass. */
    public DefaultLockHoldConvention() {
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockHoldContext context) {
        return "hold " + context.getKind() + " lock";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockHoldContext context) {
        KeyValues kind = KeyValues.of("kind", context.getKind());
        return context.getEnding() == null ? kind
                : kind.and("outcome", context.getEnding().name().toLowerCase(Locale.ROOT));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockHoldContext context) {
        return context.isLockNameIncluded() ? KeyValues.of("name", context.getLockName()) : KeyValues.empty();
    }
}
