package io.latchkey.spi;

import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;

/**
 * The plain lock of one name on one Redis ({@link LockServer#plainLock}), for kinds built on it:
 * the fair lock answers its queries with it (the same hash holds both kinds' holds), and a
 * RedLock drives one per master. Besides the protocol, such a kind needs to take a hold that
 * the kind records itself, to end one it gave up for lost, and the lock's keys and Redis.
 * Thread-safe; never blocks.
 */
public interface PlainLock extends LockProtocol {

    /**
     * One try that starts a new hold, replacing a hold of the owner that its client gave up for
     * lost if Redis still has it; for kinds built of other locks (a RedLock's masters), whose
     * holds are recorded by the composite, not per part.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @return the try's result
     */
    CompletableFuture<TryResult> tryAcquireNew(long owner, LeaseTerm lease);

    /**
     * Ends a hold of the owner that a composite (a RedLock) gave up for lost, if this Redis still
     * has it, before the owner's next call on the lock.
     *
     * @param owner the owner id
     * @param token the token this Redis gave the hold
     */
    void endLost(long owner, long token);

    /** @return the client's timer: a plain lock always has one, so a kind built on it has it too */
    @Override
    Timer timer();

    /** @return the lock's keys */
    Keys keys();

    /** @return the Redis this lock is on, as the client shares it */
    LockServer context();
}
