package io.latchkey.internal.watchdog;

import io.latchkey.spi.RenewedLease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * What the watchdog keeps of a hold it renews: how, and the hold's levels, innermost last, each
 * marked with whether it took the watchdog lease. Compared by identity: a hold granted again
 * after its release is a new hold. Mutated only inside the watchdog map's compute functions,
 * which serialize per hold.
 */
final class RenewedHold {
    private final Renewal renewal;
    private final List<String> keys;
    private final String field;
    private final RenewedLease lease;
    private final Deque<Boolean> levels = new ArrayDeque<>();
    private int watchdogLevels;
    /** Renewed as a whole until cancelled, whatever its levels. */
    private boolean pinned;

    RenewedHold(Renewal renewal, List<String> keys, String field, RenewedLease lease) {
        this.renewal = renewal;
        this.keys = List.copyOf(keys);
        this.field = field;
        this.lease = lease;
    }

    static RenewedHold pinned(Renewal renewal, List<String> keys, String field, RenewedLease lease) {
        RenewedHold hold = new RenewedHold(renewal, keys, field, lease);
        hold.pin();
        return hold;
    }

    void pin() {
        pinned = true;
    }

    void push(boolean renewed) {
        levels.addLast(renewed);
        if (renewed) {
            watchdogLevels++;
        }
    }

    void pop() {
        Boolean renewed = levels.pollLast();
        if (Boolean.TRUE.equals(renewed)) {
            watchdogLevels--;
        }
    }

    boolean renews() {
        return pinned || watchdogLevels > 0;
    }

    Renewal renewal() {
        return renewal;
    }

    List<String> keys() {
        return keys;
    }

    String field() {
        return field;
    }

    RenewedLease lease() {
        return lease;
    }
}
