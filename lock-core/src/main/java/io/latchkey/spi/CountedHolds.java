package io.latchkey.spi;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

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

    /**
     * A hold that the kind's release granted the owner without a call of its own, which a message
     * told of (the fair lock's release grants the next waiter), entered without a round trip. A
     * try that re-enters the token takes the hold in Redis (the kind's acquire script must take a
     * granted hold so, giving it the owner's lease): at once if the grant would outlast the
     * owner's lease, else when due, halfway to {@code untilNanos} less a command timeout, or first
     * if another call of the owner comes, or never if the owner's release comes first and ends the
     * hold by its token (the kind's {@link HoldScripts#end}) instead; the lease is confirmed until
     * {@code untilNanos}, a time the kind knows Redis keeps the grant at least, or the take's
     * send plus the owner's lease if that is earlier, and the take's answer confirms the owner's
     * lease, or loses it if the hold was gone. Its answer lost, it is sent again with the same
     * call id until Redis answers (the script must answer that as the first time). Never undone:
     * the owner holds the level already. Only if the owner's last call on the lock was the very try
     * that left it in line with {@code secret} and nothing of the owner came since (another call,
     * such as another caller's try under a shared owner id, may take or delete the grant), until
     * {@link #leftTheQueue}. Not for replica acknowledgement: nothing waited for the replicas to
     * have the grant.
     *
     * @param owner the owner id
     * @param lease the lease the owner takes
     * @param token the granted hold's token
     * @param secret the secret of the try the grant was made on, as its message proved
     * @param untilNanos by the client's ticker, a time before which Redis does not drop the grant
     * @return the acquired result, or null if another call of the owner on the lock came since
     *     its last try: the owner tries instead
     */
    @Nullable TryResult takeGranted(long owner, LeaseTerm lease, long token, String secret, long untilNanos);

    /**
     * The owner left the lock's line (it gave up waiting) by a call of the kind's own: a grant's
     * message no longer stands for its last try ({@link #takeGranted}).
     *
     * @param owner the owner id
     */
    void leftTheQueue(long owner);

    /**
     * Sends now the take of a granted hold that waits to be sent ({@link #takeGranted} may leave it
     * for a release to stand for), so that a query of the owner's hold sent once it is answered
     * finds it taken.
     *
     * @param owner the owner id
     * @return completes once that take is answered or failed; at once if none waited
     */
    CompletableFuture<Void> sendPendingTake(long owner);
}
