package io.latchkey.internal.cohort;

import io.latchkey.LocalHandOff;
import io.latchkey.spi.TryResult;
import java.util.concurrent.TimeUnit;

/**
 * How far a cohort may pass its Redis hold on without going back to Redis: the block of fencing
 * tokens its Redis acquisition reserved (every hand-off takes the next, so tokens grow strictly),
 * the lease as Redis last confirmed it (rule 1: a hold is passed on, and taken, only while more
 * than the command timeout of it is left), the bound while another client waits (rule 2, kept by
 * {@link OtherClients}), and whether the client has reason to doubt its hold (rule 3): a
 * {@code !force} notice, a renewal that failed, or a lost connection of the client. A doubted hold is passed on to no one until a confirmation sent after the doubt
 * arrived; its current owner keeps it, bounded by the lease as confirmed.
 *
 * <p>Not thread-safe: guarded by the owning {@link Cohort}'s monitor.
 */
final class HandOffBudget {

    /**
     * The fewest tokens a Redis acquisition reserves. With no other client waiting, a hold is
     * passed on until its block runs out; then it is released and taken again in Redis.
     */
    static final int MIN_TOKEN_BLOCK = 1024;

    private final int tokenBlock;
    private final long marginNanos;
    private final OtherClients others;
    private long redisToken;
    private long token;
    private long lastToken;
    private long confirmedUntilNanos;
    private long heldSinceNanos;
    private boolean doubted;
    private long doubtedAtNanos;

    /**
     * @param bounds the client's bounds on local hand-offs
     * @param commandTimeoutNanos the client's command timeout in nanoseconds: the margin of rule 1
     */
    HandOffBudget(LocalHandOff bounds, long commandTimeoutNanos) {
        this.tokenBlock = tokenBlock(bounds);
        this.marginNanos = commandTimeoutNanos;
        this.others = new OtherClients(bounds);
    }

    /** @return how many tokens a Redis acquisition reserves */
    int tokenBlock() {
        return tokenBlock;
    }

    /**
     * @param bounds the client's bounds on local hand-offs
     * @return how many tokens a Redis acquisition reserves: one per hand-off of a bound, and the hold's own
     */
    static int tokenBlock(LocalHandOff bounds) {
        return Math.max(bounds.maxHandOffs() + 1, MIN_TOKEN_BLOCK);
    }

    /** @return what the cohort knows of other clients */
    OtherClients others() {
        return others;
    }

    /** Redis granted the cohort a new hold: a new block, a new lease, no doubt. */
    void held(TryResult.Grant grant, long nowNanos) {
        redisToken = grant.fencingToken();
        token = redisToken;
        lastToken = redisToken + tokenBlock - 1;
        confirmedUntilNanos = grant.confirmedUntilNanos();
        heldSinceNanos = nowNanos;
        doubted = false;
        others.granted(nowNanos, token);
        if (grant.anotherClientWaits()) {
            others.waits();
        }
    }

    /** @return the token Redis gave the cohort's hold: the hold's name in every report about it */
    long redisToken() {
        return redisToken;
    }

    /** @return the token of the latest local grant */
    long token() {
        return token;
    }

    /** @return the token of the next local grant, which it takes */
    long nextToken() {
        return ++token;
    }

    /** @return when the lease as last confirmed runs out, by the client's ticker */
    long confirmedUntilNanos() {
        return confirmedUntilNanos;
    }

    /** @return whether a release may pass the hold on (rules 1–3 and the token block) */
    boolean mayPassOn(long nowNanos) {
        return mayTake(nowNanos) && token < lastToken
                && !others.boundReached(token - redisToken, nowNanos - heldSinceNanos);
    }

    /** @return whether a local waiter may take a passed hold now (rules 1 and 3) */
    boolean mayTake(long nowNanos) {
        return !doubted && confirmedUntilNanos - marginNanos - nowNanos > 0;
    }

    /** @return the bound on a wait for the cohort's hold, which a local release or an unlock ends sooner */
    long heldMillis(long nowNanos) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(confirmedUntilNanos - nowNanos));
    }

    /** The client has reason to doubt its hold: no local grant until a confirmation sent from now on. */
    void doubt(long nowNanos) {
        if (!doubted) {
            doubted = true;
            doubtedAtNanos = nowNanos;
        }
    }

    /**
     * Redis answered, to a call sent at {@code sentAtNanos}, that the hold is still there.
     *
     * @param untilNanos the lease that the answer confirms, or {@code Long.MIN_VALUE} for an
     *     answer that did not extend it (a read)
     * @return true if it extended the lease
     */
    boolean confirmed(long sentAtNanos, long untilNanos) {
        if (doubted && sentAtNanos - doubtedAtNanos >= 0) {
            doubted = false;
        }
        if (untilNanos != Long.MIN_VALUE && untilNanos - confirmedUntilNanos > 0) {
            confirmedUntilNanos = untilNanos;
            return true;
        }
        return false;
    }
}
