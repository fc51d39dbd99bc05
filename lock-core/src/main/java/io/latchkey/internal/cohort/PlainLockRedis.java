package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import io.latchkey.LockEventListener;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.lock.HoldCalls;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of a cohort on a real Redis: the plain lock's scripts under the cohort's owner
 * id, with the waiting mark and the turn (acquire.lua, release.lua, unmark.lua), the client's
 * watchdog, and the lock's channel. Also one part of a cohort's hold over several Redis servers
 * (a RedLock's master, {@link Cohorts#part}), whose tries wait for no replica: such a kind
 * outlives a lost server by its quorum. Thread-safe.
 */
final class PlainLockRedis implements CohortRedis {

    /**
     * How long a turn that a release reserved for a waiting client lasts: long enough for its
     * woken waiter's try to arrive on a loaded machine (100 ms was seen to fall short with twice
     * as many busy processes as cores), short enough that a waiter that gave up meanwhile stalls
     * the lock only briefly. A turn taken ends at once.
     */
    static final Duration TURN = Duration.ofMillis(250);

    private final ReentrantLockProtocol plain;
    private final LockContext context;
    private final long self;
    private final String field;
    private final String client;
    private final String kind;
    /** True if the cohort's tries wait for replicas as the client's acknowledgement setting says. */
    private final boolean acknowledged;
    /** The cohort's own hold: a block of tokens, the mark and the turn. */
    private final HoldCalls cohortHold;
    /** Owners' own holds with a fixed lease: one token, the mark and the turn. */
    private final HoldCalls ownHold;

    /**
     * @param plain the plain lock
     * @param self the cohort's owner id in Redis
     * @param tokenBlock how many tokens the cohort's Redis acquisition reserves
     */
    PlainLockRedis(ReentrantLockProtocol plain, long self, int tokenBlock) {
        this(plain, self, tokenBlock, plain.kind(), true);
    }

    /**
     * @param kind the lock's kind, for events
     * @param acknowledged true if the cohort's tries wait for replicas as the client's
     *     acknowledgement setting says; false for a part of a hold over several servers
     */
    PlainLockRedis(ReentrantLockProtocol plain, long self, int tokenBlock, String kind, boolean acknowledged) {
        this.plain = plain;
        this.kind = kind;
        this.acknowledged = acknowledged;
        this.context = plain.context();
        this.self = self;
        this.field = context.field(self);
        this.client = context.clientId();
        Duration mark = context.watchdogLease();
        this.cohortHold = plain.cohortCalls(tokenBlock, TURN, mark);
        this.ownHold = plain.cohortCalls(1, TURN, mark);
    }

    @Override
    public String lockName() {
        return plain.name();
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public String client() {
        return client;
    }

    @Override
    public Ticker ticker() {
        return context.ticker();
    }

    @Override
    public Timer timer() {
        return context.timer();
    }

    @Override
    public Duration commandTimeout() {
        return context.config().commandTimeout();
    }

    @Override
    public CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease) {
        return acknowledged ? cohortHold.tryAcquireReplacing(self, lease) : cohortHold.tryAcquireNew(self, lease);
    }

    @Override
    public CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken) {
        return lease.renewed() ? plain.tryAcquire(owner, lease, heldToken) : ownHold.tryAcquire(owner, lease, heldToken);
    }

    @Override
    public CompletableFuture<Void> releaseOwnHold(long owner) {
        return plain.release(owner);
    }

    @Override
    public CompletableFuture<Void> releaseCohortHold(boolean requeue) {
        // Before Redis answers: a release whose answer is lost never leaves the hold renewed.
        stopRenewing();
        return requeue ? cohortHold.requeue(self) : cohortHold.release(self);
    }

    @Override
    public void endCohortHold(long token) {
        cohortHold.endLost(self, token);
    }

    @Override
    public CompletableFuture<?> unmark() {
        return plain.unmark(client);
    }

    @Override
    public CompletableFuture<String> readMark() {
        return context.executor().call(plain.name(), commands -> commands.get(plain.keys().waitingMark()));
    }

    @Override
    public CompletableFuture<Boolean> holdsCohortHold(long token) {
        return plain.holdsToken(self, token);
    }

    @Override
    public void renew(HoldReports reports) {
        context.renewer().renew(context.executor(), plain.keys().lock(), field, new RenewedLease() {
            @Override
            public void renewed(long sentAtNanos, long untilNanos) {
                reports.renewed(sentAtNanos, untilNanos);
            }

            @Override
            public void foundGone() {
                reports.lost();
            }

            @Override
            public void renewalFailed() {
                reports.failed();
            }
        });
    }

    @Override
    public void stopRenewing() {
        context.renewer().cancel(context.executor(), plain.keys().lock(), field);
    }

    @Override
    public Runnable observe(Notices notices) {
        return context.subscriptions().observe(plain.keys().channel(), notices::notice, notices::connectionLost);
    }

    @Override
    public void handedOff(long from, long to, long token) {
        LockEvents events = context.holds().events();
        if (events.enabled()) {
            events.handedOff(new LockEventListener.HandedOff(plain.name(), kind, from, to));
        }
    }
}
