package io.latchkey.internal.watchdog;

import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.RenewedLease;
import java.util.List;
import java.util.Map;

/**
 * What the watchdog keeps of a hold it renews: how to renew it and whom to tell. It counts no
 * levels: it is renewed until cancelled (by whoever started it, the hold itself for a
 * {@code Hold}) or found gone. Compared by identity: a hold renewed again after its renewal
 * stopped is a new entry, so that an answer for the old one never reaches it. It is also the
 * registration of its renewal. Immutable.
 */
final class RenewedHold implements LeaseRegistration {
    private final Map<HoldKey, RenewedHold> holds;
    private final HoldKey id;
    private final Renewal renewal;
    private final List<String> keys;
    private final RenewedLease lease;

    /**
     * @param holds the watchdog's holds, which this entry is active in while it is there
     * @param id the hold's Redis, first key and field
     * @param renewal the script that renews it
     * @param keys the keys {@code renewal} takes for it
     * @param lease told how each renewal goes
     */
    RenewedHold(Map<HoldKey, RenewedHold> holds, HoldKey id, Renewal renewal, List<String> keys, RenewedLease lease) {
        this.holds = holds;
        this.id = id;
        this.renewal = renewal;
        this.keys = List.copyOf(keys);
        this.lease = lease;
    }

    @Override
    public boolean isActive() {
        return holds.get(id) == this;
    }

    @Override
    public void cancel() {
        holds.remove(id, this);
    }

    HoldKey id() {
        return id;
    }

    Renewal renewal() {
        return renewal;
    }

    List<String> keys() {
        return keys;
    }

    String field() {
        return id.field();
    }

    RenewedLease lease() {
        return lease;
    }
}
