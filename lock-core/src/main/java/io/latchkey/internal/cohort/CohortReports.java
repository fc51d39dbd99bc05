package io.latchkey.internal.cohort;

/** What the watchdog finds of one Redis hold of a cohort, known by its token. */
final class CohortReports implements CohortRedis.HoldReports {

    private final Cohort cohort;
    private final long heldToken;

    CohortReports(Cohort cohort, long heldToken) {
        this.cohort = cohort;
        this.heldToken = heldToken;
    }

    @Override
    public void lost() {
        cohort.lost("a renewal found the client's hold gone from Redis", false, heldToken);
    }

    @Override
    public void renewed(long sentAtNanos, long untilNanos) {
        cohort.confirmed(heldToken, sentAtNanos, untilNanos);
    }

    @Override
    public void failed() {
        cohort.doubt(heldToken, false);
    }
}
