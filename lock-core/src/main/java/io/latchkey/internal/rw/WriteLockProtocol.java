package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LockContext;
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

    /**
     * @param name the lock's name
     * @param keys the lock's keys
     * @param context the client's shared machinery
     */
    WriteLockProtocol(String name, ReadWriteKeys keys, LockContext context) {
        super(name, "write", "read", keys.channel(), keys, context);
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
