package io.latchkey;

import java.util.List;

/**
 * One acquisition of a {@link DistributedLock}, as {@link DistributedLock#acquire()} and its
 * variants return it: the lease of the hold, and the hold's fencing token.
 *
 * <p><b>Holds.</b> A hold runs from an owner's first acquisition of a lock until its last release
 * (or until its lease is lost). Re-entries of the owner belong to the same hold: each returns a
 * handle of its own, closed on its own (a closed re-entry's handle is no longer valid while the
 * hold's other handles are), and all of them carry the hold's token. Closing a handle releases
 * one level, as one {@code unlock()} does.
 *
 * <p><b>Fencing tokens.</b> A hold's token is positive and strictly greater than the token of
 * every hold of the same lock name that began before it, by any owner in any process, also after
 * the lock's key was deleted and created again, after a failover, and after Redis lost the
 * slot's counter (a restart without persistence, {@code FLUSHALL}, a failover to a replica that
 * had not received it): tokens are max(counter + 1, Redis's clock in microseconds), so what this
 * assumes is a server clock that never steps back by more than the time between two holds (the
 * README's "Fencing tokens" says exactly what is assumed). Pass it
 * along with every write to the resource the lock protects, and let the resource refuse a write
 * whose token is lower than the highest it has seen: a holder that paused past its lease (a long
 * GC, a frozen VM, a partition) then cannot overwrite the work of the holder after it. The token
 * protects only resources that check it. A RedLock's tokens are strictly increasing while a
 * majority of its masters keeps its data, and beyond that while its masters' clocks agree.
 *
 * <pre>{@code
 * try (LockHold hold = lock.acquire()) {
 *     // UPDATE stock SET count = ?, token = ? WHERE sku = ? AND token <= ?
 *     store.write(sku, count, hold.fencingToken());
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public interface LockHold extends Lease {

    /** {@return the lock object this hold was acquired on} */
    DistributedLock lock();

    /** {@return the owner of the hold: the thread id of a blocking acquisition, or the given {@code ownerId}} */
    long ownerId();

    /**
     * {@return the hold's fencing token: positive, the same for every re-entry of the hold, and
     * greater than the token of every earlier hold of this lock name}
     *
     * @throws UnsupportedOperationException for a multi-lock's hold, which has no single token:
     *     use the tokens of its {@link #parts()}
     */
    long fencingToken();

    /**
     * {@return a multi-lock's holds, one per lock, in acquisition order; for every other lock a
     * list of this hold alone}
     */
    List<LockHold> parts();
}
