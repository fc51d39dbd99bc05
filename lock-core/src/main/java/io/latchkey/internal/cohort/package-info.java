/**
 * Local hand-off for the plain lock and RedLock (lock cohorting: Dice, Marathe and Shavit, "Lock
 * Cohorting", PPoPP 2012). The global lock is the Redis hold, which the client takes for its owners under an
 * owner id of its own; the local lock is the client's cohort of the lock, which passes that hold
 * from a releasing owner straight to a waiting owner of the same client, with no round trip, while
 * the hold's lease as last confirmed by Redis has more than the command timeout left and the client
 * has no reason to doubt it, at most a configured number of times and for a configured time while
 * another client waits, after which the hold is released in Redis for the other clients. Every
 * owner handed the hold gets the next fencing token of a block that the Redis acquisition reserved.
 *
 * <p>The pieces, each small enough to read alone:
 * <ul>
 * <li>{@link io.latchkey.internal.cohort.CohortLockProtocol}: the plain lock's
 *     {@link io.latchkey.spi.LockProtocol} with hand-off, which the one acquire loop
 *     ({@code AcquireAttempt}) drives unchanged; {@link io.latchkey.internal.cohort.Cohorts}: the
 *     client's cohorts, one per lock that an owner holds, waits for or tries, none otherwise;</li>
 * <li>{@code Cohort}: the state machine (free, acquiring, held, passing, releasing): its owner,
 *     levels and transitions, and the decision on each try; its phases beside it, guarded by its
 *     monitor: {@code RedisTries} (the tries sent to Redis and what their answers change, with
 *     {@code DeferredTries}, the tries that share the answer in flight), {@code ReleaseOrPass} (a
 *     last release: passed on locally, or released in Redis), {@code HoldLoss} (doubts,
 *     confirmations and losses of the Redis hold, and the owners' holds tied to it),
 *     {@code MarkWithdrawal} (the withdrawal of the client's waiting mark before the cohort
 *     leaves); {@code LocalHold}: an owner's hold through the cohort, as a query sees it;</li>
 * <li>{@code HandOffBudget} and {@code OtherClients}: how far a hold may be passed on (the token
 *     block, the lease as confirmed, doubts, the bound while another client waits);
 *     {@code Attendance}: who of the client waits, decides or tries; {@code LocalQueue}: the
 *     local waits and their signals;</li>
 * <li>{@code CohortRedis}: the Redis side as the cohort uses it, {@code PlainLockRedis} on a real
 *     Redis; the unit tests' simulation puts a model of the scripts in its place. It is also the
 *     one seam another module implements: lock-redlock's {@code RedLockRedis} combines one
 *     {@link io.latchkey.internal.cohort.Cohorts#part} per master into a RedLock's quorum hold,
 *     which the same cohort then passes on ({@link io.latchkey.internal.cohort.Cohorts#protocol(
 *     io.latchkey.spi.LockProtocol, io.latchkey.internal.cohort.Cohorts.RedisSides)});</li>
 * <li>{@code CohortNotices}, {@code CohortReports}: what the cohort hears (notices, lost
 *     connections, the watchdog's reports); what it grants is a {@code LocalGrant} (in
 *     internal.lock, shared with the read lock's share), whose outcome {@code HoldLoss} learns.</li>
 * </ul>
 */
package io.latchkey.internal.cohort;
