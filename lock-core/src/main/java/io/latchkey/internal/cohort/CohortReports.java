package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;

/** What the watchdog finds of one Redis hold of a cohort, known by its token, told to its {@link HoldLoss}. Immutable. */
final class CohortReports implements CohortRedis.HoldReports {

    private final HoldLoss losses;
    private final long heldToken;

    CohortReports(HoldLoss losses, long heldToken) {
        this.losses = losses;
        this.heldToken = heldToken;
    }

    @Override
    public void lost() {
        losses.lost("a renewal found the client's hold gone from Redis", false, heldToken);
    }

    @Override
    public void renewed(long sentAtNanos, long untilNanos) {
        losses.confirmed(heldToken, sentAtNanos, untilNanos);
    }

    @Override
    public void failed() {
        losses.doubt(heldToken, false);
    }
}
