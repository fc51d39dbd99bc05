package io.latchkey.spi;

import io.netty.util.Timer;
import java.time.Duration;
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

    /**
     * The calls of a client with local hand-off on this lock: under a cohort's owner id, or an
     * owner's own hold whose tries mark the client as waiting (local hand-off's waiting mark and
     * turn), as the plain lock's acquire.lua and release.lua describe; for a composite of plain
     * locks (a RedLock) whose own cohort passes its hold on.
     *
     * @param tokenBlock how many tokens a new hold reserves: the hold's own and one per local
     *     hand-off; 1 for an owner's own hold
     * @param turn how long a turn reserved for another client lasts
     * @param mark how long a waiting mark lasts
     * @return the calls, on this lock's keys
     */
    CountedHolds cohortCalls(int tokenBlock, Duration turn, Duration mark);

    /** @return the Redis this lock is on, as the client shares it */
    LockServer context();
}
