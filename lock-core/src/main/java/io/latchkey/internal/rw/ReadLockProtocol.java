package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LockContext;
import java.util.concurrent.CompletableFuture;

/**
 * The read side: shared by any number of owners while no other owner writes and no writer waits;
 * an owner that reads already re-enters even while a writer waits, and the writer may read too.
 * Waiting readers are woken all at once, by a message on the readers' channel, when a writer
 * leaves and no other writer waits. A reader that gives up leaves nothing behind. Thread-safe.
 */
final class ReadLockProtocol extends ReadWriteSide {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /**
     * @param name the lock's name
     * @param keys the lock's keys
     * @param context the client's shared machinery
     */
    ReadLockProtocol(String name, ReadWriteKeys keys, LockContext context) {
        super(name, "read", "write", keys.readChannel(), keys, context);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return DONE; // a reader that waits leaves no trace in Redis
    }
}
