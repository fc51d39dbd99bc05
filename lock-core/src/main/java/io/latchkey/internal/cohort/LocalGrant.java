package io.latchkey.internal.cohort;

import io.latchkey.spi.Hold;
import io.latchkey.spi.TryResult;

/** A level granted by a cohort, not Redis: the owner's hold is confirmed and ended with the cohort's. */
final class LocalGrant implements TryResult.Grant {

    private final Cohort cohort;
    private final long owner;
    private final long token;
    private final long untilNanos;
    private final boolean reentry;

    /**
     * @param token the token of the owner's hold
     * @param untilNanos the cohort's lease as Redis last confirmed it
     * @param reentry true if the owner held already, and this is one more level
     */
    LocalGrant(Cohort cohort, long owner, long token, long untilNanos, boolean reentry) {
        this.cohort = cohort;
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
        cohort.losses().started(owner, token, hold);
    }

    @Override
    public void refuse() {
        cohort.losses().refused(owner, token, reentry);
    }
}
