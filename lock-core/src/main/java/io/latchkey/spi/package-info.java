/**
 * What a lock kind in another module builds on: the service it registers
 * ({@link io.latchkey.spi.LockKindProvider}, opening a {@link io.latchkey.spi.LockKind} on a
 * {@link io.latchkey.spi.KindContext}), the protocol it implements
 * ({@link io.latchkey.spi.LockProtocol}: {@link io.latchkey.spi.AcquireProtocol} and
 * {@link io.latchkey.spi.LockQueries}, answering a {@link io.latchkey.spi.TryResult} for a
 * {@link io.latchkey.spi.LeaseTerm}), its scripts ({@link io.latchkey.spi.Script}), its
 * wake-ups ({@link io.latchkey.spi.Wakeups}), its clock ({@link io.latchkey.spi.Ticker}), and the
 * client's record of its holds ({@link io.latchkey.spi.Hold} in a
 * {@link io.latchkey.spi.HoldRegistry}, whose lease the watchdog renews and reports to a
 * {@link io.latchkey.spi.RenewedLease}, or as a whole through a
 * {@link io.latchkey.spi.LeaseRegistration}). Internal: may change in any release.
 *
 * <h2>Why one package, exported to the two friends only</h2>
 * lock-fair and lock-redlock are released with lock-core, so this is not a public SPI: a
 * qualified export ({@code exports io.latchkey.spi to io.latchkey.fair, io.latchkey.redlock})
 * lets the module system refuse every other module at compile and at run time, where an
 * unqualified export would make these types part of what applications can reach and what
 * every release must keep. One package, rather than the internal packages the kinds used to
 * reach, keeps what a kind may touch in one place a reviewer can read; the architecture test
 * holds the kinds to it (and to the two internal packages still exported, named with the reason
 * in lock-core's module-info).
 */
package io.latchkey.spi;
