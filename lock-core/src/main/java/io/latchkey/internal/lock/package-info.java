/**
 * The lock machinery shared by every lock kind. Internal: may change without notice.
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@link io.latchkey.internal.lock.AbstractDistributedLock}: the one facade of
 *       {@code DistributedLock}. It validates arguments, picks owner and lease, and gives the
 *       blocking methods their interrupt semantics and the async ones their cancel semantics,
 *       over one seam: start an {@link io.latchkey.internal.lock.Acquisition} for an owner with a
 *       lease and a wait (its result and its cancel), and release a level.
 *       {@link io.latchkey.internal.lock.LockFacade} serves the seam for every kind with a
 *       protocol, the multi-lock for itself.</li>
 *   <li>{@link io.latchkey.internal.lock.AcquireAttempt}: the one acquire loop, a chain of
 *       futures. It asks an {@link io.latchkey.spi.AcquireProtocol} for one try at a
 *       time, waits between tries on the kind's wake-ups, and records every grant's
 *       {@link io.latchkey.spi.TryResult.Grant} as a level of the owner's hold
 *       ({@link io.latchkey.internal.lock.LockHolds}), which hands it to the watchdog: renewal
 *       starts in this one place for every kind.</li>
 *   <li>{@link io.latchkey.internal.lock.LockHolds}: the client's side of the holds of one lock,
 *       kept in the client's {@link io.latchkey.spi.HoldRegistry}: a release, a
 *       handle's close ({@link io.latchkey.internal.lock.HoldHandle}) or a re-entry of a hold
 *       whose lease was lost fails with {@code LeaseLostException}.</li>
 *   <li>A lock kind is an {@code AcquireProtocol} (try, release, give up, wake-ups) plus
 *       {@link io.latchkey.spi.LockQueries}; together a
 *       {@link io.latchkey.spi.LockProtocol}. A new kind implements those and touches
 *       neither the loop nor the facade.</li>
 *   <li>{@link io.latchkey.internal.lock.HoldCalls}: for kinds whose holds are a count in a lock
 *       hash (plain, fair, both sides of the read-write lock, each hold a field its
 *       {@link io.latchkey.internal.lock.HoldCalls.Layout} names), sending the kind's
 *       {@link io.latchkey.spi.HoldScripts}: every call carries an id the
 *       scripts remember, and one whose answer was lost is settled by
 *       {@link io.latchkey.internal.lock.UnsettledCalls}, which also sends the calls that must
 *       take effect (releases, leaving a queue): sent, or settled later. Beside it,
 *       {@code GrantCalls} sends the fair lock's calls around a hold entered on a grant's message
 *       (the take, deferred or not, and the release behind it), and {@code GrantTakes} decides
 *       when a take is due.</li>
 *   <li>{@link io.latchkey.internal.lock.LockKeys}: the Redis names of one lock, all in one
 *       Cluster slot whatever the name.</li>
 * </ul>
 */
package io.latchkey.internal.lock;
