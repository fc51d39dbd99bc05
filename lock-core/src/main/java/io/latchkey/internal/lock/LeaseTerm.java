package io.latchkey.internal.lock;

import java.time.Duration;

/**
 * How long a hold lasts: the client's watchdog lease, renewed while held, or a fixed lease.
 *
 * @param millis the lease in milliseconds, as PEXPIRE takes it
 * @param renewed true for the watchdog lease
 */
public record LeaseTerm(long millis, boolean renewed) {

    /**
     * @param watchdogTimeout the client's watchdog lease
     * @return the renewed lease
     */
    public static LeaseTerm watchdog(Duration watchdogTimeout) {
        return new LeaseTerm(watchdogTimeout.toMillis(), true);
    }

    /**
     * @param leaseTime a validated, positive lease
     * @return a lease never renewed; at least one millisecond, the least Redis can expire
     */
    public static LeaseTerm fixed(Duration leaseTime) {
        return new LeaseTerm(Math.max(1, leaseTime.toMillis()), false);
    }
}
