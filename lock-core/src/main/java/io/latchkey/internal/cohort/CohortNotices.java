package io.latchkey.internal.cohort;

/**
 * What a cohort hears on its lock's channel: {@code !wait:<client>}, another client's try found
 * the lock held (or free but reserved); {@code !force:<token>}, a force-unlock of a cohort hold,
 * maybe this one; and the client's lost connections. A notice is a hint, never proof: anyone who
 * may publish can send one, so a force notice is checked in Redis before the hold counts as lost.
 */
final class CohortNotices implements CohortRedis.Notices {

    private static final String FORCED = "!force:";
    private static final String WAITING = "!wait:";

    private final Cohort cohort;
    private final HoldLoss losses;
    private final String ownNotice;

    CohortNotices(Cohort cohort, HoldLoss losses) {
        this.cohort = cohort;
        this.losses = losses;
        this.ownNotice = WAITING + cohort.redis().client();
    }

    @Override
    public void notice(String message) {
        if (message.startsWith(WAITING)) {
            if (!message.equals(ownNotice)) {
                cohort.anotherClientWaits();
            }
        } else if (message.startsWith(FORCED)) {
            long forced;
            try {
                forced = Long.parseLong(message.substring(FORCED.length()));
            } catch (NumberFormatException e) {
                return;
            }
            // Checked in Redis before the hold is taken as lost: a forged notice must not end a
            // hold that Redis still has, nor let a waiter in beside it.
            losses.doubt(forced, true);
        }
    }

    @Override
    public void connectionLost() {
        losses.connectionLost();
    }
}
