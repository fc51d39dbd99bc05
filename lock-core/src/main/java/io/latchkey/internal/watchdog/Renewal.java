package io.latchkey.internal.watchdog;

import io.latchkey.spi.Script;

/**
 * A renewal script and how many keys it takes per hold. Every such script takes
 * {@code KEYS} = each hold's keys in turn, {@code ARGV[1]} = the lease in milliseconds and
 * {@code ARGV[i+1]} = the field of hold {@code i}, and returns per hold 1 if the hold was
 * still there and now runs at least the lease from now, else 0 with nothing changed, as
 * {@code renew.lua} does for lock hashes. Compared by identity: one constant per kind of hold.
 *
 * @param script the script
 * @param keysPerHold how many keys each hold passes, the first being the one it is known by
 */
public record Renewal(Script script, int keysPerHold) {

    /** How the holds of a lock hash ({@code <owner field> -> hold count}) are renewed. */
    public static final Renewal LOCK_HASH = new Renewal(Script.load(Renewal.class, "renew.lua"), 1);

    /**
     * Checks the key count.
     *
     * @param script the script
     * @param keysPerHold at least 1
     */
    public Renewal {
        if (keysPerHold < 1) {
            throw new IllegalArgumentException("keysPerHold must be at least 1: " + keysPerHold);
        }
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
