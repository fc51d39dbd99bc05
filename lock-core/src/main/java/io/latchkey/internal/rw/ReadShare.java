package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.TryResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Thread-safe. Transitions are made under this object's monitor; Redis calls, the readers'
 * {@link Hold}s and the completions of futures are called outside it.
 */
final class ReadShare implements LocalGrant.Source {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** The share's states, as the class comment describes them. */
    enum State { FREE, ACQUIRING, HELD, RELEASING }

    private final ReadShares registry;
    private final Object key;
    private final ShareRedis redis;
    /** Guarded by this. */
    private final AdmissionBudget budget;
    /** Guarded by this: the local readers, by owner. */
    private final Map<Long, Reader> readers = new HashMap<>();
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
    /** Guarded by this. */
    private @Nullable Runnable stopObserving;
    /** Guarded by this: what the watchdog tells of the shared hold, while HELD. */
    private @Nullable ShareLease renewing;

    ReadShare(ReadShares registry, Object key, ShareRedis redis, AdmissionBudget budget) {
        this.registry = registry;
        this.key = key;
        this.redis = redis;
        this.budget = budget;
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
                        readers.put(owner, new Reader(readerToken));
                        admitted = TryResult.acquired(new LocalGrant(this, owner, readerToken, budget.confirmedUntilNanos(), false));
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
            ShareLease renewal = null;
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
                    readers.put(owner, new Reader(redisToken));
                    answer = TryResult.acquired(new LocalGrant(this, owner, redisToken, grant.confirmedUntilNanos(), false));
                    renewal = new ShareLease(redisToken);
                    renewing = renewal;
                    long token = redisToken;
                    stopObserving = redis.observeConnection(() -> doubt(token));
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
        Reader reader = readers.get(owner);
        if (reader == null || reader.token != heldToken) {
            return null;
        }
        reader.levels++;
        return TryResult.acquired(new LocalGrant(this, owner, heldToken, budget.confirmedUntilNanos(), true));
    }

    /** @return the owner's release through the share; null if it holds nothing here */
    @Nullable CompletableFuture<Void> release(long owner) {
        CompletableFuture<TryResult> done = new CompletableFuture<>();
        synchronized (this) {
            Reader reader = readers.get(owner);
            if (reader == null) {
                return null;
            }
            if (--reader.levels > 0) {
                return DONE;
            }
            readers.remove(owner);
            if (!readers.isEmpty() || state != State.HELD) {
                return DONE;
            }
            state = State.RELEASING;
            inFlight = done;
            renewing = null; // the release stops its renewals
            stopObservingLocked();
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
        return readers.containsKey(owner);
    }

    /** @return the owner's levels through the share and the shared hold's token; null if it reads nothing here */
    synchronized @Nullable LocalRead localRead(long owner) {
        Reader reader = readers.get(owner);
        return reader == null ? null : new LocalRead(this, reader.levels, redisToken);
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

    /** This client force-unlocked the read side: the shared hold is gone. */
    void forced() {
        long token;
        synchronized (this) {
            token = redisToken;
        }
        lost("the client force-unlocked the read lock", false, token);
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
                if (state == State.HELD && redisToken == token) {
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
                lost("a reserve found the client's shared read hold gone from Redis", false, token);
            }
            if (failure != null) {
                answered.completeExceptionally(failure);
            } else {
                answered.complete(null);
            }
        });
    }

    private void doubt(long token) {
        long now = redis.ticker().read();
        synchronized (this) {
            if (state == State.HELD && redisToken == token) {
                budget.doubt(now);
            }
        }
    }

    /**
     * The shared hold {@code token} is gone, or must be taken as gone: every local reader's hold
     * is lost, and the share is free for a new hold with new tokens.
     */
    void lost(String how, boolean mayRemainInRedis, long token) {
        List<Hold> lostHolds = new ArrayList<>();
        ShareLease renewal;
        synchronized (this) {
            if (state != State.HELD || redisToken != token) {
                return;
            }
            renewal = renewing;
            renewing = null;
            for (Reader reader : readers.values()) {
                if (reader.hold != null) {
                    lostHolds.add(reader.hold);
                }
            }
            readers.clear();
            state = State.FREE;
            stopObservingLocked();
            settleIfIdle();
        }
        if (renewal != null) {
            // This hold's renewals only: a new shared hold of the same field may already be renewed.
            redis.stopRenewing(renewal);
        }
        if (mayRemainInRedis) {
            redis.endShareHold(token);
        }
        lostHolds.forEach(hold -> hold.lose(how, false));
    }

    /** A local grant was recorded in the owner's hold: the share confirms it and loses it with itself. */
    @Override
    public void started(long owner, long token, Hold hold) {
        boolean current;
        long confirmedUntil;
        synchronized (this) {
            Reader reader = readers.get(owner);
            current = reader != null && reader.token == token && state == State.HELD;
            if (reader != null && current) {
                reader.hold = hold;
            }
            confirmedUntil = budget.confirmedUntilNanos();
        }
        hold.onLoss((lostHold, mayRemainInRedis) -> readerLost(lostHold, mayRemainInRedis));
        if (!current) {
            if (hold.isHeld()) {
                hold.lose("the client's shared read hold in Redis was lost before the grant was recorded", false);
            }
            return;
        }
        // A renewal between the admission and now confirmed the shared hold beyond the grant's lease.
        hold.confirm(confirmedUntil);
        if (hold.isLost()) {
            readerLost(hold, true);
        }
    }

    /** A local grant that the acquire loop could not record gives its level back. */
    @Override
    public void refused(long owner, long token, boolean reentry) {
        synchronized (this) {
            Reader reader = readers.get(owner);
            if (reader == null || reader.token != token) {
                return;
            }
            if (reentry) {
                reader.levels--;
                return;
            }
        }
        release(owner);
    }

    /**
     * A local reader's hold was given up for lost: its lease, the shared hold's as confirmed, ran
     * out (or the client closed); so did every other local reader's.
     */
    private void readerLost(Hold hold, boolean mayRemainInRedis) {
        long token;
        synchronized (this) {
            Reader reader = readers.get(hold.owner());
            if (state != State.HELD || reader == null || reader.hold != hold) {
                return;
            }
            token = redisToken;
        }
        lost(Objects.requireNonNullElse(hold.lossReason(), "a local reader's lease was lost"), mayRemainInRedis, token);
    }

    /** Guarded by this: an idle share (free, no reader, no try waiting) leaves the registry. */
    private void settleIfIdle() {
        if (state == State.FREE && readers.isEmpty() && deferred == 0 && !retired) {
            retired = true;
            registry.retire(key, this);
        }
    }

    /** Guarded by this. */
    private void stopObservingLocked() {
        if (stopObserving != null) {
            stopObserving.run();
            stopObserving = null;
        }
    }

    /** @return the share's state, for tests */
    synchronized State state() {
        return state;
    }

    /** @return the shared hold's Redis calls and the readers' loss, for queries */
    ShareRedis redis() {
        return redis;
    }

    @Override
    public synchronized String toString() {
        return "ReadShare{" + redis.lockName() + ", " + state + (retired ? ", retired" : "") + (closed ? ", closed" : "")
                + ", readers " + readers.size() + ", " + budget + '}';
    }

    /** A local reader: its levels, its token, its hold once recorded. Guarded by the share. */
    private static final class Reader {
        private final long token;
        private int levels = 1;
        private @Nullable Hold hold;

        Reader(long token) {
            this.token = token;
        }
    }

    /** What the watchdog finds of the shared hold {@code token}. */
    private final class ShareLease implements RenewedLease {
        private final long token;

        ShareLease(long token) {
            this.token = token;
        }

        @Override
        public void renewed(long sentAtNanos, long untilNanos) {
            List<Hold> confirmed = new ArrayList<>();
            long until;
            synchronized (ReadShare.this) {
                if (state != State.HELD || redisToken != token) {
                    return;
                }
                until = budget.confirmed(untilNanos);
                for (Reader reader : readers.values()) {
                    if (reader.hold != null) {
                        confirmed.add(reader.hold);
                    }
                }
            }
            confirmed.forEach(hold -> hold.confirm(until));
        }

        @Override
        public void foundGone() {
            lost("a renewal found the client's shared read hold gone from Redis", false, token);
        }

        @Override
        public void renewalFailed() {
            doubt(token);
        }
    }
}
