/**
 * What a lock kind in another module builds on, and all it may reach of lock-core:
 * <ul>
 *   <li><b>Plugging in.</b> The service it registers ({@link io.latchkey.spi.LockKindProvider}),
 *       opening a {@link io.latchkey.spi.LockKind} on a {@link io.latchkey.spi.KindContext}, which
 *       hands it the client's Redis, or one more server, as a {@link io.latchkey.spi.LockServer}.</li>
 *   <li><b>The protocol it implements.</b> {@link io.latchkey.spi.LockProtocol}
 *       ({@link io.latchkey.spi.AcquireProtocol} and {@link io.latchkey.spi.LockQueries}),
 *       answering a {@link io.latchkey.spi.TryResult} for a {@link io.latchkey.spi.LeaseTerm}, and
 *       waiting on {@link io.latchkey.spi.Wakeups}; {@link io.latchkey.spi.LockFacades} turns it
 *       into the {@code DistributedLock} an application uses.</li>
 *   <li><b>Redis.</b> Its {@link io.latchkey.spi.Script}s, run by a
 *       {@link io.latchkey.spi.ScriptRunner} on the lock's {@link io.latchkey.spi.Keys}; the plain
 *       lock of a name ({@link io.latchkey.spi.PlainLock}), which the fair lock and RedLock build
 *       on; and, for holds counted in the lock hash as the plain lock's are, the kind's
 *       {@link io.latchkey.spi.HoldScripts} sent as {@link io.latchkey.spi.CountedHolds}.</li>
 *   <li><b>Holds and time.</b> The client's record of its holds ({@link io.latchkey.spi.Hold} in a
 *       {@link io.latchkey.spi.HoldRegistry}), whose lease the watchdog renews and reports to a
 *       {@link io.latchkey.spi.RenewedLease}, or as a whole through a
 *       {@link io.latchkey.spi.LeaseRegistration}; the client's clock
 *       ({@link io.latchkey.spi.Ticker}).</li>
 *   <li><b>Failures.</b> {@link io.latchkey.spi.KindFailures}, so that a kind's own exceptions
 *       are typed and redacted as lock-core's.</li>
 *   <li><b>Local hand-off.</b> For a composite of plain locks (a RedLock's quorum),
 *       {@link io.latchkey.spi.LocalHandOffs}: the plain lock's cohorts over the Redis side the
 *       kind implements ({@link io.latchkey.spi.CohortRedis}).</li>
 * </ul>
 * Internal: may change in any release.
 *
 * <h2>Why one package, exported to the two friends only</h2>
 * lock-fair and lock-redlock are released with lock-core, so this is not a public SPI: a
 * qualified export ({@code exports io.latchkey.spi to io.latchkey.fair, io.latchkey.redlock})
 * lets the module system refuse every other module at compile and at run time, where an
 * unqualified export would make these types part of what applications can reach and what
 * every release must keep. It is the only package exported to them besides the API: the kinds
 * see interfaces here ({@code LockServer}, {@code PlainLock}, {@code ScriptRunner},
 * {@code CountedHolds}) that lock-core's internal classes implement, and three bridges
 * ({@code LockFacades}, {@code KindFailures}, {@code LocalHandOffs}) to what they must not see, so that lock-core's
 * internals stay free to change. The architecture test holds the kinds to this package and the API.
 */
package io.latchkey.spi;
