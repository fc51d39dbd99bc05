package io.latchkey.internal.rw;

import io.latchkey.spi.Hold;
import io.latchkey.spi.TryResult;

/** A read level granted by a {@link ReadShare}, not Redis: the reader's hold is confirmed and lost with the shared hold. */
final class ReaderGrant implements TryResult.Grant {

    private final ReadShare share;
    private final long owner;
    private final long token;
    private final long untilNanos;
    private final boolean reentry;

    /**
     * @param share the share that admitted the reader
     * @param owner the reader
     * @param token the token of the reader's hold
     * @param untilNanos the shared hold's lease as Redis last confirmed it
     * @param reentry true if the reader held already, and this is one more level
     */
    ReaderGrant(ReadShare share, long owner, long token, long untilNanos, boolean reentry) {
        this.share = share;
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
        share.started(owner, token, hold);
    }

    @Override
    public void refuse() {
        share.refused(owner, token, reentry);
    }
}
