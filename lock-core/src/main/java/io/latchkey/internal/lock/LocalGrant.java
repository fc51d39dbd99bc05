package io.latchkey.internal.lock;

import io.latchkey.spi.Hold;
import io.latchkey.spi.TryResult;

/**
 * A level granted on this client, not by Redis: by a cohort passing its hold on (local
 * hand-off) or by a read share admitting a reader. The owner's hold is confirmed and lost with
 * the client's hold in Redis, which the {@link Source} keeps.
 */
public final class LocalGrant implements TryResult.Grant {

    /** What granted the level, and learns whether the acquire loop took it. */
    public interface Source {

        /**
         * The grant became the owner's hold.
         *
         * @param owner the owner id
         * @param token the token of the owner's hold
         * @param hold the hold
         */
        void started(long owner, long token, Hold hold);

        /**
         * The acquire loop did not take the grant (the attempt was cancelled or ended).
         *
         * @param owner the owner id
         * @param token the token of the grant
         * @param reentry true if the owner held already, and the grant was one more level
         */
        void refused(long owner, long token, boolean reentry);
    }

    private final Source source;
    private final long owner;
    private final long token;
    private final long untilNanos;
    private final boolean reentry;

    /**
     * @param source what granted the level
     * @param owner the owner id
     * @param token the token of the owner's hold
     * @param untilNanos the client's hold's lease as Redis last confirmed it
     * @param reentry true if the owner held already, and this is one more level
     */
    public LocalGrant(Source source, long owner, long token, long untilNanos, boolean reentry) {
        this.source = source;
        this.owner = owner;
        this.token = token;
        this.untilNanos = untilNanos;
        this.reentry = reentry;
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public long confirmedUntilNanos() {
        return untilNanos;
    }

    @Override
    public void start(Hold hold) {
        source.started(owner, token, hold);
    }

    @Override
    public void refuse() {
        source.refused(owner, token, reentry);
    }
}
