package io.latchkey.redlock.internal;

import io.latchkey.spi.CohortRedis;
import io.latchkey.spi.Ticker;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One quorum hold of a RedLock's cohort (local hand-off), known by its token, and what the
 * watchdog finds of it: each granting master's part is renewed by that master's watchdog, and
 * the cohort hears of the quorum as it hears of a plain lock's hold ({@link CohortRedis.HoldReports}).
 *
 * <p>The rules are {@link QuorumLease}'s, the RedLock's own: a part's lease runs until its last
 * renewal was sent plus the lease, less the drift allowance; the quorum's lease as confirmed is
 * the majority-th latest of its parts' ends, and the latest time by which a majority had confirmed
 * is when that confirmation counts as sent (so that it lifts only the cohort's doubts from before
 * it); a check on the timer, due when the majority's leases would run out, reports the hold lost
 * once fewer than a majority of parts still run. A renewal that fails on a minority of masters
 * is no reason to doubt the quorum (a RedLock outlives a minority); one that leaves fewer than a
 * majority of parts whose last renewal succeeded is, and so is a part found gone (the lease as
 * confirmed that the cohort was told may have counted it, and the cohort only ever extends it). Thread-safe; callbacks take this object's
 * monitor briefly and report outside it.
 *
 * @param <M> what names a master
 */
final class CohortQuorum<M> {

    private final long token;
    private final Map<M, Long> parts;
    private final int majority;
    private final Timer timer;
    private final Ticker ticker;
    /** Guarded by this. */
    private final Map<M, Member> members = new LinkedHashMap<>();
    /** Guarded by this: the cohort to tell, once the quorum is renewed; null before and after. */
    private CohortRedis.@Nullable HoldReports reports;
    private boolean over;
    private @Nullable Timeout check;

    /**
     * @param token the hold's token
     * @param parts the granting masters, each with the token it gave its part
     * @param validUntilNanos the try's start plus the lease, less the drift allowance
     */
    CohortQuorum(long token, Map<M, Long> parts, int majority, long validUntilNanos, Timer timer, Ticker ticker) {
        this.token = token;
        this.parts = Map.copyOf(parts);
        this.majority = majority;
        this.timer = timer;
        this.ticker = ticker;
        long now = ticker.read();
        for (M master : parts.keySet()) {
            members.put(master, new Member(validUntilNanos, now));
        }
    }

    long token() {
        return token;
    }

    /** @return the granting masters, each with the token it gave its part */
    Map<M, Long> parts() {
        return parts;
    }

    /**
     * Starts watching the parts' renewals for the cohort.
     *
     * @param cohort told what the renewals find of the quorum
     * @return each master's reports, to hand to that master's watchdog
     */
    Map<M, CohortRedis.HoldReports> watch(CohortRedis.HoldReports cohort) {
        Map<M, CohortRedis.HoldReports> partReports = new LinkedHashMap<>();
        synchronized (this) {
            reports = cohort;
            members.forEach((master, member) -> partReports.put(master, member));
            checkIn(majorityEnd(ticker.read()));
        }
        return partReports;
    }

    /** The hold was released or ended: nothing more is reported. */
    synchronized void end() {
        over = true;
        reports = null;
        if (check != null) {
            check.cancel();
            check = null;
        }
    }

    /** Guarded by this. @return the majority-th latest end among the parts still there, or {@code now} if too few are */
    private long majorityEnd(long now) {
        long[] ends = members.values().stream().filter(member -> !member.gone)
                .mapToLong(member -> member.runsUntilNanos).sorted().toArray();
        return ends.length >= majority ? ends[ends.length - majority] : now;
    }

    private void check() {
        check(false);
    }

    /**
     * @param partGone true if a part was just found gone: a quorum that still stands is then
     *     doubted, since the lease as confirmed that the cohort was told may have counted that part
     */
    private void check(boolean partGone) {
        CohortRedis.HoldReports lostTo;
        CohortRedis.HoldReports doubtedBy = null;
        synchronized (this) {
            if (over || reports == null) {
                return;
            }
            long now = ticker.read();
            long running = members.values().stream().filter(member -> !member.gone && member.runsUntilNanos - now > 0).count();
            if (running >= majority) {
                checkIn(majorityEnd(now));
                doubtedBy = partGone ? reports : null;
                lostTo = null;
            } else {
                lostTo = reports;
                end();
            }
        }
        if (lostTo != null) {
            lostTo.lost();
        } else if (doubtedBy != null) {
            doubtedBy.failed();
        }
    }

    /** Guarded by this. */
    private void checkIn(long atNanos) {
        if (check != null) {
            check.cancel();
        }
        try {
            check = timer.newTimeout(timeout -> check(), Math.max(0, atNanos - ticker.read()), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            check = null; // the client is closing, and with it every renewal
        }
    }

    /** One master's part, renewed by that master's watchdog. Guarded by the quorum. */
    private final class Member implements CohortRedis.HoldReports {
        long runsUntilNanos;
        long sentAtNanos;
        boolean failing;
        boolean gone;

        Member(long runsUntilNanos, long sentAtNanos) {
            this.runsUntilNanos = runsUntilNanos;
            this.sentAtNanos = sentAtNanos;
        }

        @Override
        public void renewed(long sentAt, long untilNanos) {
            long leaseNanos = untilNanos - sentAt;
            CohortRedis.HoldReports to;
            long confirmedSent;
            long confirmedUntil;
            synchronized (CohortQuorum.this) {
                if (over || gone) {
                    return;
                }
                runsUntilNanos = sentAt + leaseNanos - Master.driftNanos(leaseNanos);
                sentAtNanos = sentAt;
                failing = false;
                List<Member> live = members.values().stream().filter(member -> !member.gone).toList();
                if (live.size() < majority || reports == null) {
                    return;
                }
                confirmedUntil = majorityEnd(sentAt);
                confirmedSent = live.stream().mapToLong(member -> member.sentAtNanos).sorted().toArray()[live.size() - majority];
                to = reports;
                checkIn(confirmedUntil);
            }
            to.renewed(confirmedSent, confirmedUntil);
        }

        @Override
        public void lost() {
            synchronized (CohortQuorum.this) {
                gone = true;
            }
            check(true);
        }

        @Override
        public void failed() {
            CohortRedis.HoldReports to;
            synchronized (CohortQuorum.this) {
                failing = true;
                long confirming = members.values().stream().filter(member -> !member.gone && !member.failing).count();
                if (over || reports == null || confirming >= majority) {
                    return;
                }
                to = reports;
            }
            to.failed();
        }
    }
}
