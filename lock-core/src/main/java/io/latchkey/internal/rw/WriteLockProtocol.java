package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Script;
import io.lettuce.core.ScriptOutputType;
import java.util.concurrent.CompletableFuture;

/**
 * The write side: one owner, no other reader. A writer that cannot have it yet keeps a place
 * among the waiting writers, which holds new readers back, by trying again at least every half
 * watchdog lease; a writer that gives up leaves it at once ({@link #abandon}), one that died loses
 * it when it runs out, so that neither holds readers back for longer. An owner that holds only
 * the read lock is refused with {@link IllegalMonitorStateException} (an upgrade would wait for
 * itself). Waiting writers are woken one at a time, by the writers' channel. Thread-safe.
 */
final class WriteLockProtocol extends ReadWriteSide {

    private static final Script ABANDON = Script.load(WriteLockProtocol.class, "abandon.lua");

    private final LocalReaders readers;

    /**
     * @param name the lock's name
     * @param keys the lock's keys
     * @param context the client's shared machinery
     */
    WriteLockProtocol(String name, ReadWriteKeys keys, LockContext context) {
        this(name, keys, context, LocalReaders.NONE);
    }

    /**
     * @param name the lock's name
     * @param keys the lock's keys
     * @param context the client's shared machinery
     * @param readers the client's readers that read through its shared read hold
     */
    WriteLockProtocol(String name, ReadWriteKeys keys, LockContext context, LocalReaders readers) {
        super(name, "write", "read", keys.channel(), keys, context);
        this.readers = readers;
    }

    /**
     * An owner that reads through the client's shared read hold is refused as an upgrade here,
     * since Redis sees its read only as the share's. A try that Redis answers "wait" has taken its
     * place among the waiting writers: the client's share admits no new local reader past it.
     */
    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        if (readers.readsLocally(owner)) {
            return CompletableFuture.failedFuture(LockExceptions.upgradeRefused(name()));
        }
        return super.tryAcquire(owner, lease, heldToken).thenApply(result -> {
            if (!result.acquired() && !result.holdGone()) {
                readers.writerWaits();
            }
            return result;
        });
    }

    /** Leaves the waiting writers; if the answer is lost, leaves them again as soon as Redis answers. */
    @Override
    public CompletableFuture<Void> abandon(long owner) {
        String field = holds.field(owner);
        return context.unsettled().sendOrSettleLater(context.hold(keys.lock(), owner), "leaving the waiting writers",
                () -> leaveWriters(field), () -> leaveWriters(field)).thenApply(left -> null);
    }

    @Override
    CompletableFuture<?> afterUndo(String field) {
        return leaveWriters(field);
    }

    private CompletableFuture<Long> leaveWriters(String field) {
        return context.executor().eval(name(), ABANDON, ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.leases(), keys.writers(), keys.readChannel()},
                field, context.publishCommand());
    }
}
