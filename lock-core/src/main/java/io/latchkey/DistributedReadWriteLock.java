package io.latchkey;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A pair of locks over one name: a shared read lock that any number of owners may hold at once
 * while no writer holds, and an exclusive write lock. Both are {@link DistributedLock}s with
 * every rule of that interface (owners, leases and the watchdog, waiting by message, interrupts,
 * fencing tokens); what differs is who may hold at once:
 * <ul>
 *   <li><b>Writers are not starved.</b> Once a writer waits, readers that arrive after it wait
 *       behind it. An owner that already holds the read lock may re-enter it even then: it is
 *       not a new arrival.
 *   <li><b>Downgrade, never upgrade.</b> The write lock's owner may also take the read lock and
 *       then release the write lock, keeping the read lock. An owner that holds only the read
 *       lock and asks for the write lock gets {@link IllegalMonitorStateException} at once,
 *       instead of waiting for itself forever.
 *   <li><b>One token sequence per name,</b> shared by read and write holds: a writer's token
 *       exceeds every earlier reader's. An owner's read hold and write hold are two holds, each
 *       with its own token and lease.
 *   <li><b>Each side answers for itself:</b> {@code readLock().isLocked()} is true while anyone
 *       reads, {@code writeLock().isLocked()} while anyone writes; {@code remainingLease()} is the
 *       longest lease of that side; {@code forceUnlock()} ends the write hold, or every read hold.
 * </ul>
 * <p>Writers are preferred: while writers keep coming, readers wait. A waiting writer whose process
 * died holds new readers back for at most the watchdog lease after its last try.
 *
 * <p>Thread-safe; a cheap view, like every lock of {@link LockClient}.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /** {@return the name, which is also the Redis key of the lock} */
    String getName();

    /**
     * {@return the shared lock: many owners at once while no writer holds; reentrant per owner}
     */
    @Override
    DistributedLock readLock();

    /**
     * {@return the exclusive lock: one owner, no readers; reentrant; its owner may also take the
     * read lock}
     */
    @Override
    DistributedLock writeLock();
}
