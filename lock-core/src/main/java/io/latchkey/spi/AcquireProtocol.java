package io.latchkey.spi;

import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What the one acquire loop (lock-core's {@code AcquireAttempt}) needs of a lock kind: one try, one release,
 * giving up, and wake-ups. The waiting, retrying, cancelling, renewing and blocking around them is
 * the loop's and the facade's, the same for every kind, so a new kind (a read-write lock, a
 * semaphore) implements this and nothing in the loop changes. Implementations are thread-safe
 * and never block.
 */
public interface AcquireProtocol {

    /** @return the lock's name */
    String name();

    /**
     * One try, in one round trip where the kind allows.
     *
     * @param owner the owner id
     * @param lease the lease to take; a re-entry never shortens the hold's lease
     * @param heldToken the token of the owner's hold that this try re-enters, which must still be
     *     there; 0 if the client knows of none (the try then takes the lock, or re-enters whatever
     *     hold the owner has)
     * @return whether the owner now holds the lock, with the grant, or how long a wait is worth at
     *     most without a wake-up, or that the hold to re-enter is gone
     */
    CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken);

    /**
     * Releases one hold of the owner, and at the last one wakes a waiter.
     *
     * @param owner the owner id
     * @return completes when released; fails with {@link IllegalMonitorStateException} if the
     *     owner held nothing, in which case nothing changed
     */
    CompletableFuture<Void> release(long owner);

    /**
     * Called when an attempt gives up (its wait ran out, it was interrupted or cancelled) without
     * holding the lock: drop whatever the tries left behind, such as a queue entry.
     *
     * @param owner the owner id
     * @return completes when nothing of the attempt is left
     */
    CompletableFuture<Void> abandon(long owner);

    /**
     * As {@link #abandon(long)}, told which of the owner's tries was the attempt's: for a kind
     * whose release grants the next waiter (the fair lock), several attempts of one owner share
     * its place and its grant, and another attempt may have entered on a grant that this one
     * never heard of. Such a kind gives back a grant not taken only if it was made on this
     * attempt's try. The acquire loop calls this one.
     *
     * @param owner the owner id
     * @param queuedSecret the {@link TryResult#queuedSecret()} of the attempt's last try answered
     *     with one, or null if none was
     * @return completes when nothing of the attempt is left
     */
    default CompletableFuture<Void> abandon(long owner, @Nullable String queuedSecret) {
        return abandon(owner);
    }

    /**
     * @param owner the owner id, for kinds that wake waiters by name
     * @return the source of wake-ups for one attempt, ready once it cannot miss a release
     */
    CompletableFuture<Wakeups> wakeups(long owner);

    /**
     * @param owner the owner id, for kinds that wake waiters by name
     * @return wake-ups ready at once, without a round trip, if others here already wait for this
     *     lock; else null, and {@link #wakeups} is used once a try has failed
     */
    default @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        return null;
    }

    /**
     * A try answered by a wake-up's word, without a round trip: for a kind whose release grants
     * the lock to the next waiter and says so in the message (the fair lock, whose word is the
     * token and a proof of the secret). Anyone who may publish on the lock's channel can send a
     * word, so the kind enters only on one that proves the secret of the attempt's last try
     * ({@link TryResult#queuedSecret()}), which only the kind's release knows besides this
     * client. The acquire loop asks only when the attempt holds nothing yet, its last try was
     * answered "not acquired" with a secret and none has been sent since (so the grant the word
     * tells of came after that try ran), and offers each such secret once.
     *
     * @param owner the owner id
     * @param lease the lease the attempt takes
     * @param word the word, as {@link Wakeups#takeWord()} gave it
     * @param queuedSentNanos the client's ticker just before the last try was sent
     * @param queuedSecret that try's {@link TryResult#queuedSecret()}
     * @return the grant, or null to make a try instead (the word is not the kind's, does not
     *     prove the secret, or tells of a grant too close to running out to enter without a
     *     round trip)
     */
    default @Nullable TryResult grantedByWord(long owner, LeaseTerm lease, String word, long queuedSentNanos,
                                              String queuedSecret) {
        return null;
    }

    /** @return where the client records the holds of this lock */
    HoldRegistry holdRegistry();

    /** @return what identifies this lock on this client: equal for every lock object of it */
    Object identity();

    /**
     * @return the kind's name as events and metrics show it ({@code "plain"}, {@code "fair"},
     *     {@code "red"}, …): short, lower case, the same for every lock of the kind
     */
    default String kind() {
        return "unnamed";
    }

    /** @return the clock that the acquire loop measures the caller's wait with: the client's ticker */
    default Ticker ticker() {
        return Ticker.system();
    }

    /**
     * @return the client's timer, on which the acquire loop tries again after a short outage
     *     (lock-core's {@code ShortOutage}); null only where nothing schedules such tries (some tests), and
     *     then a failed try ends the attempt at once
     */
    default @Nullable Timer timer() {
        return null;
    }

    /**
     * @return how long one try may take: the command timeout of the client (for a RedLock, the
     *     longest attempt timeout of its masters). It is also how long {@code lock()} and a zero
     *     wait try again through a short outage (lock-core's {@code ShortOutage})
     */
    default Duration commandTimeout() {
        return Duration.ZERO;
    }
}
