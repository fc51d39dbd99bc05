package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.TryResult;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One client's shared read hold of one read-write lock: a read hold in Redis that the client
 * takes under an owner id of its own, and the local readers it admits on it without a round trip.
 *
 * <p>States: {@code FREE} (no Redis hold), {@code ACQUIRING} (one reader's try for the shared hold
 * is in Redis; the client's other new readers wait for its answer here, not in Redis),
 * {@code HELD} (the hold is in Redis; readers are admitted while the {@link AdmissionBudget}
 * allows; one that came before Redis answered the reserve on its way waits for that answer; any
 * other goes to Redis with a read hold of its own, as without the share, so that Redis decides:
 * behind a waiting writer it waits there), {@code RELEASING} (the last local
 * reader left and the Redis hold is being released; new readers wait for that).
 *
 * <p>What a locally admitted reader holds:
 * <ul>
 * <li>its lease is the shared hold's as Redis last confirmed it: the grant's, then each of the
 *     watchdog's renewals of the shared hold, which confirm every local reader's {@link Hold};</li>
 * <li>its token is the next of the block of tokens that the grant or the latest reserve took in
 *     Redis (acquire.lua's ARGV[8], reserve.lua), so that tokens are unique per name, strictly
 *     increasing among this client's readers, below every token of a hold that begins in Redis
 *     afterwards (every writer's, as the read-write rule asks), and above every token of a hold
 *     that began before the block was taken. What no local admission can give is a token above
 *     that of another client's reader that began in Redis between the block and the admission:
 *     readers of two clients are not ordered by their tokens, only readers against writers;</li>
 * <li>its levels are counted here; a re-entry is one more level, also while a writer waits (it
 *     is no new arrival), and needs no round trip;</li>
 * <li>its release is local, but the last local reader's releases the Redis hold (no linger: a
 *     writer waiting for it is woken by that release at once);</li>
 * <li>a loss of the shared hold (a renewal or a reserve found it gone, its lease as confirmed ran
 *     out, a force-unlock by this client) is the loss of every local reader's hold, each told
 *     through its {@link Hold}.</li>
 * </ul>
 *
 * <p>This class keeps the states and decides each try, re-entry and release; the rest is its
 * parts': how far readers may be admitted and the token blocks, the {@link AdmissionBudget}'s;
 * who reads here with how many levels, {@link AdmittedReaders}; the shared hold confirmed,
 * doubted or lost, and each reader's {@link Hold} tied to it, {@link ShareLoss}, which is also
 * what every local grant reports to.
 *
 * <p>Thread-safe. Transitions are made under this object's monitor, which guards the parts'
 * fields too, so that a report of the shared hold and a transition never interleave; Redis calls,
 * the readers' {@link Hold}s and the completions of futures are called outside it.
 */
final class ReadShare {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** The share's states, as the class comment describes them. */
    enum State { FREE, ACQUIRING, HELD, RELEASING }

    private final ReadShares registry;
    private final Object key;
    private final ShareRedis redis;
    /** Guarded by this. */
    private final AdmissionBudget budget;
    /** Guarded by this. */
    private final AdmittedReaders readers = new AdmittedReaders();
    /** Its fields guarded by this: confirmations, doubts and losses of the shared hold. */
    private final ShareLoss losses;
    /** Guarded by this. */
    private State state = State.FREE;
    /** Guarded by this: left the registry; its calls look the share up again. */
    private boolean retired;
    /** Guarded by this: the client is closing. */
    private boolean closed;
    /** Guarded by this: the token of the shared hold in Redis, while HELD. */
    private long redisToken;
    /** Guarded by this: tries waiting for the share's call in flight. */
    private int deferred;
    /** Guarded by this: the share's try (ACQUIRING) or release (RELEASING) in flight. */
    private @Nullable CompletableFuture<TryResult> inFlight;
    /** Guarded by this: completes when the reserve in flight is answered. */
    private @Nullable CompletableFuture<TryResult> reserving;

    ReadShare(ReadShares registry, Object key, ShareRedis redis, AdmissionBudget budget) {
        this.registry = registry;
        this.key = key;
        this.redis = redis;
        this.budget = budget;
        this.losses = new ShareLoss(this, redis, budget, readers);
    }

    /** Where a try goes that the share does not answer itself. */
    interface Routes {

        /** @return the try made again from the start, through the registry */
        CompletableFuture<TryResult> again();

        /** @return the try made in Redis with a read hold of the owner's own */
        CompletableFuture<TryResult> own();
    }

    /**
     * A new reader's try (a watchdog lease, no hold to re-enter).
     *
     * @return the try's result; null if this share retired (look it up again)
     */
    @Nullable CompletableFuture<TryResult> tryNew(long owner, LeaseTerm lease, Routes routes) {
        long now = redis.ticker().read();
        TryResult admitted = null;
        long token = 0;
        long reserveSent = 0;
        long reserveAdmissions = 0;
        CompletableFuture<TryResult> waitFor = null;
        CompletableFuture<TryResult> reserveAnswer = null;
        CompletableFuture<TryResult> mine = null;
        synchronized (this) {
            if (retired) {
                return null;
            }
            if (closed) {
                return CompletableFuture.failedFuture(LockExceptions.clientClosed());
            }
            switch (state) {
                case FREE -> {
                    state = State.ACQUIRING;
                    mine = new CompletableFuture<>();
                    inFlight = mine;
                }
                case HELD -> {
                    if (budget.mayAdmit(now)) {
                        long readerToken = budget.admit();
                        readers.admit(owner, readerToken);
                        admitted = TryResult.acquired(new LocalGrant(losses, owner, readerToken, budget.confirmedUntilNanos(), false));
                    }
                    if (budget.reserveDue(now)) {
                        token = redisToken;
                        reserveSent = budget.reserveSentNanos();
                        reserveAdmissions = budget.reserveSentAdmissions();
                        reserveAnswer = new CompletableFuture<>();
                        reserving = reserveAnswer;
                    }
                    if (admitted == null && reserving != null && budget.awaitsAnswer(now)) {
                        // Admissions ran ahead of Redis's answers: the reader waits for the one on
                        // its way, as the client's other calls on the lock would.
                        deferred++;
                        waitFor = reserving;
                    }
                }
                default -> {
                    deferred++;
                    waitFor = inFlight;
                }
            }
        }
        if (reserveAnswer != null) {
            sendReserve(token, reserveSent, reserveAdmissions, reserveAnswer);
        }
        if (admitted != null) {
            return CompletableFuture.completedFuture(admitted);
        }
        if (mine != null) {
            return sendShareTry(owner, lease, now, mine);
        }
        if (waitFor != null) {
            return afterInFlight(waitFor, routes);
        }
        // Held, but the budget admits nobody now (a writer waits, the client doubts its hold, or
        // its lease as confirmed is nearly out): Redis decides, as for a client without the share.
        return routes.own();
    }

    /** A try that found the share's call in flight: it shares a "wait" or a failure, or tries again. */
    private CompletableFuture<TryResult> afterInFlight(CompletableFuture<TryResult> waitFor, Routes routes) {
        return waitFor.handle((answer, failure) -> {
            synchronized (this) {
                deferred--;
                settleIfIdle();
            }
            if (failure != null) {
                return CompletableFuture.completedFuture(TryResult.sharedFailure(failure));
            }
            if (answer != null && !answer.acquired()) {
                return CompletableFuture.completedFuture(TryResult.busy(answer.waitMillis()));
            }
            return routes.again();
        }).thenCompose(next -> next);
    }

    private CompletableFuture<TryResult> sendShareTry(long owner, LeaseTerm lease, long sentAtNanos,
                                                      CompletableFuture<TryResult> done) {
        return redis.tryShareHold(lease).handle((result, failure) -> {
            TryResult answer = null;
            CompletableFuture<TryResult> giveBack = null;
            RenewedLease renewal = null;
            synchronized (this) {
                inFlight = null;
                if (failure != null || !result.acquired()) {
                    state = State.FREE;
                } else if (closed) {
                    state = State.RELEASING;
                    giveBack = new CompletableFuture<>();
                    inFlight = giveBack;
                } else {
                    TryResult.Grant grant = Objects.requireNonNull(result.grant(), "an acquired result has its grant");
                    redisToken = grant.fencingToken();
                    budget.held(redisToken, grant.confirmedUntilNanos(), sentAtNanos);
                    state = State.HELD;
                    readers.admit(owner, redisToken);
                    answer = TryResult.acquired(new LocalGrant(losses, owner, redisToken, grant.confirmedUntilNanos(), false));
                    renewal = losses.watch(redisToken);
                }
                if (state == State.FREE) {
                    settleIfIdle();
                }
            }
            if (renewal != null) {
                redis.renew(renewal);
            }
            if (giveBack != null) {
                releaseInRedis(giveBack);
                done.completeExceptionally(LockExceptions.clientClosed());
                return CompletableFuture.<TryResult>failedFuture(LockExceptions.clientClosed());
            }
            if (failure != null) {
                done.completeExceptionally(failure);
                return CompletableFuture.<TryResult>failedFuture(failure);
            }
            done.complete(result);
            return CompletableFuture.completedFuture(answer != null ? answer : result);
        }).thenCompose(next -> next);
    }

    /**
     * A re-entry of an owner's hold through the share.
     *
     * @return the grant of one more level, or null if the owner holds nothing here by that token
     */
    synchronized @Nullable TryResult reenter(long owner, long heldToken) {
        if (!readers.reenter(owner, heldToken)) {
            return null;
        }
        return TryResult.acquired(new LocalGrant(losses, owner, heldToken, budget.confirmedUntilNanos(), true));
    }

    /** @return the owner's release through the share; null if it holds nothing here */
    @Nullable CompletableFuture<Void> release(long owner) {
        CompletableFuture<TryResult> done = new CompletableFuture<>();
        synchronized (this) {
            if (!readers.contains(owner)) {
                return null;
            }
            if (!readers.leave(owner) || !readers.isEmpty() || state != State.HELD) {
                return DONE;
            }
            state = State.RELEASING;
            inFlight = done;
            losses.unwatch(); // the release stops its renewals
        }
        return releaseInRedis(done);
    }

    /** Releases the shared hold; the tries that waited for it go again once it is answered. */
    private CompletableFuture<Void> releaseInRedis(CompletableFuture<TryResult> done) {
        return redis.releaseShareHold().whenComplete((ok, failure) -> {
            synchronized (this) {
                inFlight = null;
                state = State.FREE;
                settleIfIdle();
            }
            done.complete(null);
        });
    }

    /** @return whether the owner reads through the share */
    synchronized boolean readsLocally(long owner) {
        return readers.contains(owner);
    }

    /** @return the owner's levels through the share and the shared hold's token; null if it reads nothing here */
    synchronized @Nullable LocalRead localRead(long owner) {
        int levels = readers.levels(owner);
        return levels == 0 ? null : new LocalRead(this, levels, redisToken);
    }

    /** A write try of this client was answered "wait": no new reader is admitted locally until a reserve says otherwise. */
    void writerWaits() {
        long now = redis.ticker().read();
        synchronized (this) {
            if (state == State.HELD) {
                budget.writerWaits(now);
            }
        }
    }

    /** The client is closing: every try from now on fails; the readers' holds are lost with the client's. */
    synchronized void close() {
        closed = true;
    }

    /** Sends a reserve; the tries that wait for its answer go again once the share has taken it in. */
    private void sendReserve(long token, long sentAtNanos, long admissionsThen, CompletableFuture<TryResult> answered) {
        redis.reserve(token).whenComplete((answer, failure) -> {
            boolean gone = false;
            synchronized (this) {
                if (reserving == answered) {
                    reserving = null;
                }
                if (holdsInRedis(token)) {
                    if (failure != null) {
                        budget.reserveFailed();
                    } else if (answer.held()) {
                        budget.reserved(sentAtNanos, admissionsThen, answer.writerWaits(), answer.firstToken());
                    } else {
                        gone = true;
                    }
                }
            }
            if (gone) {
                losses.lost("a reserve found the client's shared read hold gone from Redis", false, token);
            }
            if (failure != null) {
                answered.completeExceptionally(failure);
            } else {
                answered.complete(null);
            }
        });
    }

    /** Guarded by this: an idle share (free, no reader, no try waiting) leaves the registry. */
    private void settleIfIdle() {
        if (state == State.FREE && readers.isEmpty() && deferred == 0 && !retired) {
            retired = true;
            registry.retire(key, this);
        }
    }

    // ---- under the monitor: what ShareLoss asks, and the transition it makes ------------------------

    /** Guarded by this. @return whether the share holds the shared hold {@code token} in Redis */
    boolean holdsInRedis(long token) {
        return state == State.HELD && redisToken == token;
    }

    /** Guarded by this. @return whether the share holds in Redis */
    boolean isHeld() {
        return state == State.HELD;
    }

    /** Guarded by this. @return the token of the shared hold in Redis, while HELD */
    long redisToken() {
        return redisToken;
    }

    /** Guarded by this: the shared hold is lost and its readers are gone; the share is free for a new hold. */
    void ended() {
        state = State.FREE;
        settleIfIdle();
    }

    /** @return the share's state, for tests */
    synchronized State state() {
        return state;
    }

    /** @return the shared hold's Redis calls, for queries */
    ShareRedis redis() {
        return redis;
    }

    /** @return what confirms, doubts or ends the shared hold */
    ShareLoss losses() {
        return losses;
    }

    @Override
    public synchronized String toString() {
        return "ReadShare{" + redis.lockName() + ", " + state + (retired ? ", retired" : "") + (closed ? ", closed" : "")
                + ", readers " + readers.size() + ", " + budget + '}';
    }
}
