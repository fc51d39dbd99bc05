package io.latchkey.redlock.internal;

import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockServer;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog's view of one owner's RedLock hold: valid while a majority of masters hold it
 * with a lease that still runs.
 *
 * <p>Each master's watchdog renews that master's hold as it renews a plain lock, with a
 * {@link Member} as its lease. A member's lease runs until the last successful renewal was
 * sent plus the renewed lease, less the drift allowance; a renewal that finds the hold gone ends
 * it at once, and a master that does not answer simply lets it run out. A check on the timer,
 * due when the majority's leases would run out, drops the masters whose lease ran out and ends
 * the hold when fewer than a majority still run: it logs the lost lease at WARN and stops the
 * renewals that are left, since they no longer keep anything safe.
 *
 * <p>It is kept with the client's record of the hold ({@link Hold#attach}), where every lock
 * object of the RedLock finds it. The whole watch ends as the release of the owner's last level
 * is sent; a master's part ends with the last unlock on that master (which stops its renewal)
 * and with the master's client. Thread-safe; callbacks only take this
 * object's monitor briefly.
 */
final class QuorumLease {

    private final String name;
    private final long owner;
    private final int masterCount;
    private final int majority;
    private final Timer timer;
    private final Ticker ticker;
    private final LostLeaseListener lostLeaseListener;
    /** The client's record of the hold, told when a majority confirms its lease and when it is lost. */
    private final Hold hold;
    /** Keyed by client, the same for every lock object over that master. Guarded by this. */
    private final Map<LockServer, Member> members = new HashMap<>();
    private boolean over;
    private @Nullable Timeout check;

    private QuorumLease(RedLockProtocol lock, long owner, Hold hold) {
        this.hold = hold;
        this.name = lock.name();
        this.owner = owner;
        this.masterCount = lock.masters().size();
        this.majority = lock.majority();
        this.timer = lock.timer();
        this.ticker = lock.ticker();
        this.lostLeaseListener = lock.lostLeaseListener();
    }

    /**
     * @param hold the client's record of a RedLock hold, or null
     * @return the quorum lease that renews it, or null if none does (any more)
     */
    static @Nullable QuorumLease of(@Nullable Hold hold) {
        QuorumLease quorum = hold == null ? null : hold.attachment(QuorumLease.class);
        return quorum == null || quorum.isOver() ? null : quorum;
    }

    /**
     * After a granted try: starts watching a renewed hold, or, for a hold already watched (a
     * re-entry, of either lease), resets the leases of the masters that granted.
     *
     * @param validUntilNanos the start of the try plus the lease, less the drift allowance
     * @param hold the client's record of the hold
     */
    static void acquired(RedLockProtocol lock, long owner, LeaseTerm lease, List<Master> granted, long validUntilNanos,
                         Hold hold) {
        QuorumLease quorum = of(hold);
        if (quorum == null) {
            if (!lease.renewed()) {
                return;
            }
            quorum = new QuorumLease(lock, owner, hold);
            hold.attach(quorum);
        }
        quorum.granted(granted, validUntilNanos);
    }

    private synchronized void granted(List<Master> granted, long validUntilNanos) {
        if (over) {
            return;
        }
        for (Master master : granted) {
            LockServer server = master.context();
            Member member = members.get(server);
            if (member == null) {
                member = new Member();
            }
            member.runsUntilNanos = validUntilNanos;
            member.gone = false;
            member.registration = master.register(owner, member);
            // Only now: every member in the map has its registration.
            members.put(server, member);
        }
        confirmHold();
        checkIn(validUntilNanos - ticker.read());
    }

    /**
     * Tells the hold how long a majority's leases still run: the majority-th latest end among
     * the masters that hold it.
     * Guarded by this.
     */
    private void confirmHold() {
        long[] ends = members.values().stream().filter(member -> !member.gone)
                .mapToLong(member -> member.runsUntilNanos).sorted().toArray();
        if (ends.length >= majority) {
            hold.confirm(ends[ends.length - majority]);
        }
    }

    /** The hold was given up for lost by the client (its lease ran out unconfirmed): its renewals keep nothing safe any more. */
    void stop() {
        synchronized (this) {
            if (over) {
                return;
            }
            end();
        }
        lostLeaseListener.leaseLost(name, owner);
    }

    /** The owner's last level is being released: the renewals stop quietly, before the masters answer. */
    synchronized void stopAtRelease() {
        if (!over) {
            end();
        }
    }

    /**
     * After a master released one of the owner's holds: masters where the last hold went (their
     * release stopped the renewal) leave; once fewer than a majority are left, the owner has
     * unlocked the RedLock and the rest of the watch ends quietly.
     */
    synchronized void afterRelease() {
        if (over) {
            return;
        }
        members.values().removeIf(member -> !member.registration.isActive());
        if (members.size() < majority) {
            end();
        }
    }

    synchronized boolean isOver() {
        return over;
    }

    private void check() {
        int running;
        synchronized (this) {
            if (over) {
                return;
            }
            long now = ticker.read();
            // A master whose lease ran out holds nothing that renewing could keep: stop trying.
            members.values().removeIf(member -> {
                boolean ranOut = member.gone || member.runsUntilNanos - now <= 0;
                if (ranOut) {
                    member.registration.cancel();
                }
                return ranOut;
            });
            long[] left = members.values().stream()
                    .mapToLong(member -> member.runsUntilNanos - now)
                    .sorted()
                    .toArray();
            running = left.length;
            if (running >= majority) {
                checkIn(left[running - majority]);
                return;
            }
            end();
        }
        hold.lose("only " + running + " of " + masterCount + " RedLock masters still hold it within their lease, fewer than the majority of "
                + majority, true);
        lostLeaseListener.leaseLost(name, owner);
    }

    /** Guarded by this. */
    private void checkIn(long delayNanos) {
        if (check != null) {
            check.cancel();
        }
        try {
            check = timer.newTimeout(timeout -> check(), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            end(); // the client is closing, and with it every renewal
        }
    }

    /** Guarded by this. */
    private void end() {
        over = true;
        if (check != null) {
            check.cancel();
        }
        members.values().forEach(member -> member.registration.cancel());
        members.clear();
    }

    /** One master's part: renewed by that master's watchdog, which tells it how it went. */
    private final class Member implements RenewedLease {
        /**
         * Guarded by the QuorumLease: set at each grant on the master. The checker cannot see that
         * it is set before use: granted() sets it before the member enters {@code members}, and
         * only the members there are read.
         */
        @SuppressWarnings("NullAway.Init")
        LeaseRegistration registration;
        /** Guarded by the QuorumLease. */
        long runsUntilNanos;
        /** Guarded by the QuorumLease. */
        boolean gone;

        @Override
        public void renewed(long sentAtNanos, long untilNanos) {
            long leaseNanos = untilNanos - sentAtNanos;
            synchronized (QuorumLease.this) {
                runsUntilNanos = sentAtNanos + leaseNanos - Master.driftNanos(leaseNanos);
                confirmHold();
            }
        }

        @Override
        public void foundGone() {
            synchronized (QuorumLease.this) {
                gone = true;
            }
            check();
        }
    }
}
