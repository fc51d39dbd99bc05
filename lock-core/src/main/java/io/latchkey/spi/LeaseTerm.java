package io.latchkey.spi;

import java.time.Duration;

/**
 * How long a hold lasts: the client's watchdog lease, renewed while held, or a fixed lease.
 *
 * @param millis the lease in milliseconds, as PEXPIRE takes it
 * @param renewed true for the watchdog lease
 */
public record LeaseTerm(long millis, boolean renewed) {

    /**
     * The longest lease and timeout the client takes: a year. Longer ones are mistakes (a
     * {@code Long.MAX_VALUE} meant as "for ever"), and past about 2^53 ms Redis's scripts no
     * longer read them as integers, which once left a hold written without an expiry.
     */
    public static final Duration MAX = Duration.ofDays(365);

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
