/**
 * The watchdog: on the client's one timer, renews every hold that has a watchdog-leased level, in
 * batches per Redis (per hash slot in a Cluster). Renewal starts when the acquire loop records a
 * grant, and a level stops counting the moment its release is asked for. {@link
 * io.latchkey.internal.watchdog.LeaseRenewer} keeps what it renews and schedules the rounds; a
 * {@link io.latchkey.internal.watchdog.RenewalRound} batches and sends one round; each hold's
 * {@link io.latchkey.spi.RenewedLease} (the client's record of the hold itself) is
 * told how its renewal went. Internal: may change without notice.
 */
package io.latchkey.internal.watchdog;
