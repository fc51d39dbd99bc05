package io.latchkey.internal.rw;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.LockFacade;

/**
 * {@link DistributedReadWriteLock}: the two sides of one name, each a {@link LockFacade} over its
 * protocol, so that both have every rule of {@link DistributedLock} from the one acquire loop.
 * Thread-safe; a cheap view holding no state of its own.
 */
public final class ReadWriteLockFacade implements DistributedReadWriteLock {

    private final String name;
    private final DistributedLock readLock;
    private final DistributedLock writeLock;

    /**
     * @param name a validated lock name
     * @param context the client's shared machinery
     */
    public ReadWriteLockFacade(String name, LockContext context) {
        ReadWriteKeys keys = ReadWriteKeys.of(context.keys(name));
        this.name = name;
        this.readLock = new LockFacade(new ReadLockProtocol(name, keys, context), context.watchdogLease());
        this.writeLock = new LockFacade(new WriteLockProtocol(name, keys, context), context.watchdogLease());
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return readLock;
    }

    @Override
    public DistributedLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock{" + name + '}';
    }
}
