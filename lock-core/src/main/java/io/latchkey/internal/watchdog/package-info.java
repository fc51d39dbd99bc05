/**
 * The watchdog: on the client's one timer, renews every hold it was asked to renew, in batches per
 * Redis (per hash slot in a Cluster), until whoever asked stops it. It counts no levels: a
 * {@link io.latchkey.spi.Hold} keeps its own, starts its renewal at a grant of a watchdog-leased
 * level and stops it the moment its last such level's release is asked for. {@link
 * io.latchkey.internal.watchdog.LeaseRenewer} keeps what it renews (one {@link
 * io.latchkey.internal.watchdog.RenewedHold} per hold) and schedules the rounds; a {@link
 * io.latchkey.internal.watchdog.RenewalRound} batches and sends one round; each hold's {@link
 * io.latchkey.spi.RenewedLease} (mostly the client's record of the hold itself) is told how its
 * renewal went. Internal: may change without notice.
 */
package io.latchkey.internal.watchdog;
