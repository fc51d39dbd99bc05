package io.latchkey.spi;

import java.util.concurrent.CompletableFuture;

/**
 * The tries and releases of a lock kind whose holds are a count in the lock hash, sent with the
 * kind's {@link HoldScripts} ({@link LockServer#countedHolds}): each call of an owner goes after
 * its earlier calls on the lock, one whose answer was lost is settled, a grant comes with what
 * the acquire loop records and the watchdog renews, and a released level stops counting for
 * renewal at once. A kind gets these rather than writing them because they must be the plain
 * lock's exactly: the fair lock's holds are the plain lock's hash. Thread-safe; never blocks.
 */
public interface CountedHolds {

    /**
     * One try, as {@link AcquireProtocol#tryAcquire} answers it.
     *
     * @param owner the owner id
     * @param lease the lease to take; a re-entry never shortens the hold's lease
     * @param heldToken the token of the hold to re-enter, or 0 to take the lock or re-enter
     *     whatever hold the owner has
     * @return the try's result
     */
    CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken);

    /**
     * One try that starts a new hold, replacing a hold of the owner that its client gave up for
     * lost, if Redis still has it; for kinds built of other locks (a RedLock's masters), whose
     * holds are recorded by the composite, not per part.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @return the try's result
     */
    CompletableFuture<TryResult> tryAcquireNew(long owner, LeaseTerm lease);

    /**
     * Releases one level, as {@link AcquireProtocol#release} does.
     *
     * @param owner the owner id
     * @return completes when released; fails with {@link IllegalMonitorStateException} if the
     *     owner held nothing, in which case nothing changed
     */
    CompletableFuture<Void> release(long owner);
}
