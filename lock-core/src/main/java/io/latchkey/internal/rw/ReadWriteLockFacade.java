package io.latchkey.internal.rw;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.LockFacade;
import org.jspecify.annotations.Nullable;

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
        this(name, context, null);
    }

    /**
     * @param name a validated lock name
     * @param context the client's shared machinery
     * @param shares the client's shared read holds; null where local hand-off is off, so that
     *     every reader takes a hold of its own in Redis
     */
    public ReadWriteLockFacade(String name, LockContext context, @Nullable ReadShares shares) {
        ReadWriteKeys keys = ReadWriteKeys.of(context.keys(name));
        this.name = name;
        ReadLockProtocol read = new ReadLockProtocol(name, keys, context);
        if (shares == null) {
            this.readLock = new LockFacade(read, context.watchdogLease());
            this.writeLock = new LockFacade(new WriteLockProtocol(name, keys, context), context.watchdogLease());
            return;
        }
        WriteLockProtocol write = new WriteLockProtocol(name, keys, context, shares.readers(SharedReadProtocol.shareKey(read)));
        this.readLock = new LockFacade(new SharedReadProtocol(read, shares, write.identity()), context.watchdogLease());
        this.writeLock = new LockFacade(write, context.watchdogLease());
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
