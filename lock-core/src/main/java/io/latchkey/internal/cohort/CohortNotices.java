package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;

/**
 * What a cohort hears on its lock's channel: {@code !wait:<client>}, another client's try found
 * the lock held (or free but reserved); {@code !force:<token>}, a force-unlock of a cohort hold,
 * maybe this one; and the client's lost connections. A notice is a hint, never proof: anyone who
 * may publish can send one, so a force notice is checked in Redis before the hold counts as lost.
 * Thread-safe: a notice takes the cohort's monitor only to record another client's wait.
 */
final class CohortNotices implements CohortRedis.Notices {

    private static final String FORCED = "!force:";
    private static final String WAITING = "!wait:";

    private final Cohort cohort;
    private final OtherClients others;
    private final HoldLoss losses;
    private final String ownNotice;

    /** @param others the cohort's knowledge of other clients, guarded by its monitor */
    CohortNotices(Cohort cohort, OtherClients others, HoldLoss losses) {
        this.cohort = cohort;
        this.others = others;
        this.losses = losses;
        this.ownNotice = WAITING + cohort.redis().client();
    }

    @Override
    public void notice(String message) {
        if (message.startsWith(WAITING)) {
            if (!message.equals(ownNotice)) {
                anotherClientWaits();
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

    /** Another client waits for the lock: while the cohort tries or holds, it bounds its hand-offs. */
    private void anotherClientWaits() {
        synchronized (cohort) {
            if (!cohort.is(Cohort.State.FREE)) {
                others.waits();
            }
        }
    }

    @Override
    public void connectionLost() {
        losses.connectionLost();
    }
}
