package io.latchkey.internal.lock;

import io.latchkey.LockEventListener;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.AcquireProtocol;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.TryResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The client's side of the holds of one lock: records each grant in the client's
 * {@link HoldRegistry}, and makes releases and re-entries of a hold whose lease was lost fail
 * with {@link io.latchkey.LeaseLostException} instead of acting on it. Thread-safe.
 */
final class LockHolds {

    private final AcquireProtocol protocol;
    private final HoldRegistry registry;
    private final Object identity;

    LockHolds(AcquireProtocol protocol) {
        this.protocol = protocol;
        this.registry = protocol.holdRegistry();
        this.identity = protocol.identity();
    }

    /** @return the owner's hold of this lock, held or lost, or null if the client knows of none */
    @Nullable Hold current(long owner) {
        return registry.find(identity, owner);
    }

    /**
     * Records a grant, then lets it start the hold's watchdog renewal and the like.
     *
     * @param watchdog true if the owner asked for the watchdog lease
     * @return the hold it belongs to; a lost one if it re-entered a hold given up meanwhile
     */
    Hold admit(long owner, boolean watchdog, TryResult.Grant grant) {
        Hold hold = registry.granted(identity, protocol.name(), protocol.kind(), owner, grant.fencingToken(),
                grant.confirmedUntilNanos(), watchdog);
        if (hold.isGivenUp()) {
            grant.refuse();
        } else {
            grant.start(hold);
        }
        return hold;
    }

    /**
     * A re-entry found the hold it meant gone from Redis.
     *
     * @return true if that hold is lost; false if it had simply ended meanwhile (another call of
     *     the owner released it), so that a new try takes a new hold
     */
    boolean foundGone(long owner, Hold expected) {
        if (expected.isHeld() && current(owner) == expected) {
            expected.lose("a re-entry found it gone from Redis", false);
        }
        return expected.isGivenUp();
    }

    /**
     * Releases one level of the owner's hold: fails with {@link io.latchkey.LeaseLostException},
     * touching nothing in Redis, and ends the hold, if its lease was lost; and also if Redis no
     * longer has a hold the client knows of, which was then lost unnoticed, or if the lease was
     * lost while the release waited for Redis's answer.
     */
    CompletableFuture<Void> release(long owner) {
        Hold hold = current(owner);
        if (hold != null && hold.isGivenUp()) {
            return failLost(hold);
        }
        if (hold != null) {
            hold.releasing();
        }
        return protocol.release(owner).handle((ok, failure) -> {
            Throwable cause = failure == null ? null : Failures.unwrap(failure);
            if (hold != null && cause instanceof IllegalMonitorStateException) {
                hold.lose("the owner's release found it gone from Redis", false);
            }
            // A Redis failure releases the level here too, and in Redis once it answers (or when
            // its lease runs out, the watchdog having stopped renewing it at once).
            boolean over = hold != null && hold.leave();
            if (hold != null && hold.isGivenUp()) {
                // Lost before the release was answered (perhaps still being reported by the
                // watchdog's thread): the owner learns it, and the hold ends, as for a release
                // that came after the loss.
                return failLost(hold);
            }
            if (hold != null && over) {
                released(hold);
            }
            return failure == null ? CompletableFuture.<Void>completedFuture(null) : CompletableFuture.<Void>failedFuture(failure);
        }).thenCompose(outcome -> outcome);
    }

    /**
     * Releases the level of one handle of {@code hold}.
     *
     * @return fails with {@link io.latchkey.LeaseLostException} if the lease was lost, with
     *     {@link IllegalMonitorStateException} if the hold is already over
     */
    CompletableFuture<Void> close(Hold hold) {
        if (hold.isGivenUp()) {
            return failLost(hold);
        }
        if (!hold.isHeld()) {
            return CompletableFuture.failedFuture(LockExceptions.holdAlreadyReleased(protocol.name(), hold.owner()));
        }
        return release(hold.owner());
    }

    /**
     * An acquisition of this lock starts to wait (see {@link HoldRegistry#waiting}).
     *
     * @return ends the wait's count; idempotent
     */
    Runnable waiting() {
        return registry.waiting(identity);
    }

    /** @return where the client's lock events go */
    LockEvents events() {
        return registry.events();
    }

    private void released(Hold hold) {
        LockEvents events = registry.events();
        if (events.enabled()) {
            events.released(new LockEventListener.Released(protocol.name(), protocol.kind(), hold.owner(), hold.token(),
                    LockEvents.between(hold.startedNanos(), protocol.ticker().read())));
        }
    }

    /** Fails once the loss has been reported to the hold's kind, so that its cleanup in Redis comes first. */
    private CompletableFuture<Void> failLost(Hold hold) {
        return hold.lost().thenCompose(reported -> CompletableFuture.failedFuture(endLost(hold)));
    }

    private RuntimeException endLost(Hold hold) {
        hold.end();
        return LockExceptions.leaseLost(protocol.name(), hold.owner(), hold.lossReason());
    }
}
