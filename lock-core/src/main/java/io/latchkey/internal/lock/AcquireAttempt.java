package io.latchkey.internal.lock;

import io.latchkey.LockEventListener;
import io.latchkey.LockEventListener.AcquireOutcome;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.AcquireProtocol;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one acquire loop, as a chain of futures: try; if taken, join the lock's wake-ups and try
 * once more (an unlock may have come before the subscription); then wait for a wake-up or the
 * holder's lease, whichever is first, and try again, until acquired or the wait runs out.
 *
 * <p>Each try re-enters the owner's hold if the client knows of one, and fails with
 * {@link io.latchkey.LeaseLostException} if that hold's lease was lost; a grant is recorded as a
 * level of the owner's hold ({@link LockHolds}) before the result completes with that hold.
 *
 * <p>A try (or a join of the wake-ups) that failed because of a short outage is made again on
 * the client's timer while the caller's wait lasts ({@link ShortOutage} says which failures, for
 * how long, with what pause); any other failure ends the attempt.
 *
 * <p>Steps run one after another, each started by the completion of the last, so the fields
 * need no locking. Giving up, whether the wait ran out or the attempt was cancelled, always
 * closes the wake-ups and abandons the attempt's trace in Redis before {@link #settled()}.
 */
final class AcquireAttempt implements Acquisition<Hold> {

    private static final Logger log = LoggerFactory.getLogger(AcquireAttempt.class);
    private static final long FOREVER = Long.MAX_VALUE;
    private static final long MIN_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AcquireProtocol protocol;
    private final LockHolds holds;
    private final long owner;
    private final LeaseTerm lease;
    private final Ticker ticker;
    private final long deadlineNanos;
    /** The hold once acquired, null when the wait ran out. */
    private final CompletableFuture<Hold> result = new CompletableFuture<>();
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    private volatile @Nullable Wakeups wakeups;
    /** Set by the one {@link #cancel} that gives a granted hold back: a second must not release another level. */
    private final AtomicBoolean handedBack = new AtomicBoolean();
    /** Tells the listener how the attempt ended, once; null while events are off. */
    private volatile @Nullable BiConsumer<Hold, Throwable> tellEnd;
    private final AtomicBoolean endTold = new AtomicBoolean();
    private final ShortOutage outage;
    private final OutageRetries retries;
    /** When the last try, or join of the wake-ups, was started: where an outage it meets begins. */
    private volatile long stepStartedNanos;
    /**
     * The last try, if it was answered "not acquired" with a secret and none was sent since; else
     * null. Only then may a wake-up's word stand for a try ({@link AcquireProtocol#grantedByWord}).
     */
    private volatile @Nullable QueuedTry queued;
    /** The secret of the last try answered "not acquired" with one, kept for {@link AcquireProtocol#abandon(long, String)}. */
    private volatile @Nullable String lastSecret;

    private AcquireAttempt(AcquireProtocol protocol, LockHolds holds, long owner, LeaseTerm lease, long waitNanos) {
        this.protocol = protocol;
        this.holds = holds;
        this.owner = owner;
        this.lease = lease;
        this.ticker = protocol.ticker();
        long startNanos = ticker.read();
        this.deadlineNanos = waitNanos == FOREVER ? FOREVER : startNanos + waitNanos;
        this.outage = new ShortOutage(startNanos, deadlineNanos, FOREVER, protocol.commandTimeout().toNanos());
        this.retries = new OutageRetries(outage, protocol.timer(), ticker, new OutageRetries.Steps() {
            @Override
            public void tryAgain() {
                tryOnce();
            }

            @Override
            public void fail(Throwable failure) {
                AcquireAttempt.this.fail(failure);
            }

            @Override
            public void cut(Throwable failure) {
                result.completeExceptionally(failure);
            }

            @Override
            public boolean ended() {
                return result.isDone();
            }
        });
    }

    /**
     * @param waitNanos the longest wait, or {@link Long#MAX_VALUE} to wait as long as it takes
     * @return the running attempt
     */
    static AcquireAttempt start(AcquireProtocol protocol, LockHolds holds, long owner, LeaseTerm lease, long waitNanos) {
        AcquireAttempt attempt = new AcquireAttempt(protocol, holds, owner, lease, waitNanos);
        if (holds.events().enabled()) {
            attempt.tellEvents(holds.events());
        }
        attempt.wakeups = protocol.wakeupsIfWaitedFor(owner);
        attempt.result.whenComplete((acquired, failure) -> {
            Wakeups current = attempt.wakeups;
            if (current != null) {
                current.interrupt();
            }
            // Given up during the pause after a failure: clean up now, not when the pause ends.
            attempt.retries.stop();
        });
        if (attempt.wakeups != null) {
            attempt.countAsWaiter();
        }
        attempt.tryOnce();
        return attempt;
    }

    /** Tells the start now, and the end once: a grant as it is made, else when the result completes. */
    private void tellEvents(LockEvents events) {
        long startNanos = ticker.read();
        String kind = protocol.kind();
        events.acquireStarted(new LockEventListener.AcquireStarted(protocol.name(), kind, owner));
        tellEnd = (hold, failure) -> {
            if (!endTold.compareAndSet(false, true)) {
                return;
            }
            AcquireOutcome outcome = failure instanceof CancellationException ? AcquireOutcome.INTERRUPTED
                    : failure != null ? AcquireOutcome.FAILED
                    : hold == null ? AcquireOutcome.TIMED_OUT : AcquireOutcome.ACQUIRED;
            events.acquireEnded(new LockEventListener.AcquireEnded(protocol.name(), kind, owner,
                    LockEvents.between(startNanos, ticker.read()), outcome, hold == null ? 0 : hold.token()));
        };
        result.whenComplete(tellEnd);
    }

    static long forever() {
        return FOREVER;
    }

    /**
     * @return the owner's hold once acquired, null when the wait ran out (after the attempt
     *     cleaned up); fails with the Redis failure, or with LeaseLostException for a re-entry of
     *     a hold whose lease was lost
     */
    @Override
    public CompletableFuture<Hold> result() {
        return result;
    }

    /** @return completes when the attempt has finished and cleaned up after itself */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /**
     * Gives up: stops waiting, or, if the lock was already granted, releases that hold, once
     * however often it is called.
     *
     * @return completes when nothing of this attempt is left, in Redis or here
     */
    @Override
    public CompletableFuture<Void> cancel() {
        if (result.cancel(false)) {
            return settled;
        }
        if (!result.isCompletedExceptionally() && result.join() != null && handedBack.compareAndSet(false, true)) {
            return holds.release(owner);
        }
        return settled;
    }

    private void tryOnce() {
        if (result.isDone()) {
            giveUp();
            return;
        }
        Hold held = holds.current(owner);
        if (held != null && held.isGivenUp()) {
            failOnceReported(held);
            return;
        }
        Wakeups current = wakeups;
        TryResult byWord = held == null ? grantedByWord(current) : null;
        if (byWord != null) {
            afterTry(byWord, null, 0, null);
            return;
        }
        long seen = current == null ? 0 : current.sequence();
        long sentNanos = ticker.read();
        stepStartedNanos = sentNanos;
        queued = null;
        protocol.tryAcquire(owner, lease, held == null ? 0 : held.token()).whenComplete((answer, failure) -> {
            try {
                String secret = failure == null && !answer.acquired() ? answer.queuedSecret() : null;
                if (secret != null) {
                    queued = new QueuedTry(sentNanos, secret);
                    lastSecret = secret;
                }
                afterTry(answer, failure, seen, held);
            } catch (RuntimeException e) {
                fail(e);
            }
        });
    }

    /**
     * The grant a wake-up's word tells of, if the kind takes it for a try. A word is taken (and
     * so dropped) before every try: one that came before the last try was sent may tell of a
     * grant that try took, or whose undo it met, so only one that came after a try answered "not
     * acquired" tells of a grant made after that try ran. That try's secret is offered once:
     * whatever the kind answers, the attempt holds or tries again, with a new secret.
     */
    private @Nullable TryResult grantedByWord(@Nullable Wakeups current) {
        String word = current == null ? null : current.takeWord();
        QueuedTry last = queued;
        if (word == null || last == null) {
            return null;
        }
        queued = null;
        return protocol.grantedByWord(owner, lease, word, last.sentNanos(), last.secret());
    }

    /** A try answered "not acquired": when it was sent, and the secret it left with its place in line. */
    private record QueuedTry(long sentNanos, String secret) {}

    /**
     * Fails with LeaseLostException once the loss has been reported to the hold's kind (which
     * may still be under way on the thread that found it), so that the kind's cleanup in Redis
     * comes before the owner's next call.
     */
    private void failOnceReported(Hold hold) {
        hold.lost().whenComplete((reported, ignored) -> fail(LockExceptions.leaseLost(protocol.name(), owner, hold.lossReason())));
    }

    private void afterTry(TryResult answer, @Nullable Throwable failure, long seen, @Nullable Hold held) {
        if (failure != null) {
            // A try whose answer was lost is settled by the protocol itself (undone once Redis
            // answers), before the owner's next call on the lock: a retry never meets it.
            failOrRetry(failure);
            return;
        }
        Throwable shared = answer.sharedFailure();
        if (shared != null && ShortOutage.isPassing(shared) && protocol.timer() != null) {
            // A shared call that Redis did not answer: this try failed so too, and is tried again,
            // or cut at the outage's end, as after a failure of its own (not answered "taken").
            failOrRetry(shared);
            return;
        }
        // Another owner's failure that is no outage's says nothing of this try: try again, as before.
        outage.answered();
        if (answer.acquired()) {
            TryResult.Grant grant = Objects.requireNonNull(answer.grant(), "an acquired result has its grant");
            if (held != null && held.isGivenUp() && grant.fencingToken() == held.token()) {
                // A re-entry of a hold given up for lost while it was in flight: its level is the
                // lost hold's, ended in Redis behind this try, even where another caller of the
                // owner id has ended the hold here already and a new record would outlive it.
                grant.refuse();
                failOnceReported(held);
                return;
            }
            // Every grant is recorded here, also one given back below at once: the release then
            // undoes exactly this level.
            Hold hold = holds.admit(owner, lease.renewed(), grant);
            if (hold.isGivenUp()) {
                failOnceReported(hold);
            } else {
                acquired(hold);
            }
        } else if (answer.holdGone()) {
            Hold gone = Objects.requireNonNull(held, "only a re-entry finds its hold gone");
            if (holds.foundGone(owner, gone)) {
                failOnceReported(gone);
            } else {
                tryOnce(); // the hold ended meanwhile, released by another call of the owner
            }
        } else if (result.isDone()) {
            giveUp();
        } else if (remainingNanos() <= 0) {
            giveUp().whenComplete((ok, ignored) -> result.complete(null));
        } else if (wakeups == null) {
            stepStartedNanos = ticker.read();
            protocol.wakeups(owner).whenComplete((joined, joinFailure) -> {
                if (joinFailure != null) {
                    failOrRetry(joinFailure);
                } else {
                    wakeups = joined;
                    countAsWaiter();
                    tryOnce();
                }
            });
        } else {
            CompletableFuture<Void> woken = wakeups.await(seen, waitBound(answer.waitMillis()));
            if (result.isDone()) {
                // Cancelled after the check above but before the wait was parked: the cancel's
                // interrupt found no wait to end, so end this one, or it sits out its whole bound.
                wakeups.interrupt();
            }
            woken.whenComplete((ignored, waitFailure) -> {
                if (waitFailure != null) {
                    fail(waitFailure);
                } else {
                    tryOnce();
                }
            });
        }
    }

    /**
     * The attempt has joined the lock's wake-ups: it is one of the client's waiters for the lock
     * ({@link io.latchkey.HeldLock#waiters()}) until its result is decided. Counted only here, so
     * an acquisition that gets the lock at its first try costs nothing.
     */
    private void countAsWaiter() {
        Runnable stopped = holds.waiting();
        result.whenComplete((hold, failure) -> stopped.run());
    }

    private long waitBound(long holderLeaseMillis) {
        long remaining = remainingNanos();
        if (holderLeaseMillis < 0) {
            return remaining;
        }
        return Math.max(MIN_WAIT_NANOS, Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(holderLeaseMillis)));
    }

    private long remainingNanos() {
        return deadlineNanos == FOREVER ? FOREVER : deadlineNanos - ticker.read();
    }

    private void acquired(Hold hold) {
        // Closed before the caller hears of the grant, which it may act on in the completion
        // itself: with local hand-off an open attempt counts as a waiter, and an unlock must not
        // pass the hold on to an attempt that waits no more.
        closeWakeups();
        BiConsumer<Hold, Throwable> tell = tellEnd;
        if (tell != null && !result.isDone()) {
            // Told before the caller hears of the grant: it may release the hold in that very
            // completion, with local hand-off without a round trip, and a listener must see the
            // grant before the release (result's own completions run after the caller's). If a
            // cancel wins the race, the grant was real and is handed back below, a release too.
            tell.accept(hold, null);
        }
        if (result.complete(hold)) {
            settled.complete(null);
        } else {
            // Cancelled while the granting try was in flight: hand the level back.
            holds.release(owner).whenComplete((ok, failure) -> giveUp());
        }
    }

    /**
     * A try or a join failed: tries again after a pause if the failure is a short outage's and
     * the wait allows ({@link ShortOutage}), else fails the attempt.
     */
    private void failOrRetry(Throwable failure) {
        long pauseNanos = retries.failed(failure, stepStartedNanos);
        if (pauseNanos < 0) {
            fail(failure);
        } else {
            log.debug("lock '{}', owner {}: trying again in {} ms after {}", protocol.name(), owner,
                    TimeUnit.NANOSECONDS.toMillis(pauseNanos), failure.toString());
        }
    }

    private void fail(Throwable failure) {
        // As in giveUp: an unlock message that woke this attempt is lost with it unless passed on.
        Wakeups current = wakeups;
        if (current != null) {
            current.handOn();
        }
        closeWakeups();
        protocol.abandon(owner, lastSecret).whenComplete((ok, ignored) -> {
            result.completeExceptionally(failure);
            settled.complete(null);
        });
    }

    /** Leaves without the lock: hands an unused wake-up on, and drops the attempt's trace in Redis. */
    private CompletableFuture<Void> giveUp() {
        Wakeups current = wakeups;
        if (current != null) {
            current.handOn();
        }
        closeWakeups();
        return protocol.abandon(owner, lastSecret).handle((ok, failure) -> {
            settled.complete(null);
            return null;
        });
    }

    private void closeWakeups() {
        Wakeups current = wakeups;
        if (current != null) {
            current.close();
        }
    }
}
