/**
 * Local hand-off for the plain lock (lock cohorting: Dice, Marathe and Shavit, "Lock Cohorting",
 * PPoPP 2012). The global lock is the Redis hold, which the client takes for its owners under an
 * owner id of its own; the local lock is the client's {@link io.latchkey.internal.cohort.Cohorts
 * cohort} of the lock, which passes that hold from a releasing owner straight to a waiting owner
 * of the same client, with no round trip, while the hold's lease as last confirmed by Redis has
 * more than the command timeout left, at most a configured number of times and for a configured
 * time, after which the hold is released in Redis for the other clients. Every owner handed the
 * hold gets the next fencing token of a block that the Redis acquisition reserved. Redis always
 * shows the lock held while any owner of the cohort holds; a force-unlock, a renewal that finds the
 * hold gone, or a lease that ran out unconfirmed ends the cohort and the current owner's hold.
 * The acquire loop ({@code AcquireAttempt}) is unchanged: the cohort is a
 * {@link io.latchkey.internal.lock.LockProtocol} around the plain one.
 */
package io.latchkey.internal.cohort;
