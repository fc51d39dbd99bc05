/**
 * The read-write lock, built on the lock-kind seam: each side is a
 * {@link io.latchkey.spi.LockProtocol} served by the one
 * {@link io.latchkey.internal.lock.LockFacade} and its one acquire loop. Internal: may change
 * without notice.
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@link io.latchkey.internal.rw.ReadWriteLockFacade}: the
 *       {@link io.latchkey.DistributedReadWriteLock}, a pair of facades over one name.</li>
 *   <li>{@code ReadLockProtocol} and {@code WriteLockProtocol}: the two sides. An owner's read
 *       hold and write hold are two holds (two identities, two hash fields, two watchdog entries,
 *       two tokens from the one counter), so a writer may also read and then release the write
 *       lock (a downgrade). Their calls on the lock still go one at a time per owner, in one
 *       line of {@link io.latchkey.internal.lock.UnsettledCalls}, so that an acquire whose answer
 *       was lost is undone before the owner's next call on either side.</li>
 *   <li>{@code ReadWriteSide}: what both sides share: the keys, the release and query scripts,
 *       the settling of lost answers ({@link io.latchkey.internal.lock.HoldCalls}), and the
 *       watchdog's renewal script, which renews read and write holds in one batch.</li>
 *   <li>Shared reads, where the client's local hand-off is on: {@code SharedReadProtocol}
 *       decorates the read side; {@link io.latchkey.internal.rw.ReadShares} keeps the client's
 *       {@code ReadShare} per lock, one read hold in Redis under the client's own owner id on
 *       which its readers are admitted without a round trip ({@code AdmittedReaders} counts their
 *       levels; {@code ShareLoss} ties their holds to the shared hold, confirmed, doubted or
 *       lost, as the plain lock's cohort's {@code HoldLoss} does); {@code AdmissionBudget} bounds the
 *       admissions as the plain lock's hand-off is bounded ({@code reserve.lua} confirms the hold,
 *       tells of waiting writers and reserves the next tokens); {@code ShareRedis} is its Redis
 *       side ({@code ReadSideRedis} on a real Redis); {@code LocalReaders} is what the write side
 *       asks of it (an upgrade of a local reader is refused) and tells it (its writer waits).</li>
 * </ul>
 *
 * <h2>In Redis</h2>
 * Every hold has a lease of its own, its end kept in a sorted set, so that a crashed reader's
 * lease runs out while other readers renew theirs. New readers wait while a writer holds or a
 * live writer waits (a sorted set of waiting writers, each with a place that runs out unless it
 * keeps trying), so a stream of readers cannot starve a writer. A writer's release wakes one
 * waiting writer, else every waiting reader (a message that wakes all local waiters of the
 * readers' channel); the last reader's release wakes one writer. Every script is O(log n) in the
 * number of holds and waiting writers; the scripts' headers give the layout.
 */
package io.latchkey.internal.rw;
