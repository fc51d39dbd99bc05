package io.latchkey.spi;

import io.latchkey.LockEventListener;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold of one lock, as this client knows it: from the first grant to the last release,
 * or until the lease is lost. Its levels are the grants not yet released; its token is the one
 * Redis gave the first grant.
 *
 * <p>The lease, as last confirmed by Redis, runs until the send time of the confirming request
 * (a grant or a renewal) plus the lease it set, by the client's {@link Ticker}; Redis started
 * counting later than that, so Redis never drops the hold before it. One timer check per hold
 * watches that moment: a renewal that moved it meanwhile only moves the check, and one that never
 * came (a fixed lease, or Redis unreachable) means the lease must be taken as run out. A hold is
 * lost at the first of that, a report of its kind (a renewal found it gone), or a call that found
 * it gone; then {@link #lost()} completes, once.
 *
 * <p>It keeps the one count of its levels ({@link HoldLevels}), and by it starts and stops its
 * watchdog renewal; the watchdog tells the hold itself how each renewal went. Thread-safe.
 */
public final class Hold implements RenewedLease {

    private static final Logger log = LoggerFactory.getLogger(Hold.class);

    private enum State { HELD, LOST, OVER }

    private final HoldRegistry registry;
    private final HoldRegistry.Key key;
    private final String lockName;
    /** The kind of the first grant, as events name it. */
    private final String kind;
    private final long token;
    private final Timer timer;
    private final Ticker ticker;
    /** When the first grant was recorded, by the ticker: the start of the time held. */
    private final long startedNanos;
    private final CompletableFuture<Void> lost = new CompletableFuture<>();
    /** What every handle shows: a caller completing or cancelling it does not touch {@link #lost}. */
    private final CompletableFuture<Void> notice = lost.copy();
    /** Guarded by this. */
    private State state = State.HELD;
    /** Guarded by this: grants not yet released, and the watchdog's renewal. */
    private final HoldLevels levels = new HoldLevels();
    /** Guarded by this. */
    private long confirmedUntilNanos;
    /** Guarded by this: false until the first confirmation, since any long is a valid ticker reading. */
    private boolean confirmed;
    /** Guarded by this: the one check on the lease, or null while none is scheduled. */
    private @Nullable Timeout check;
    /** Set once, before {@link #lost} completes. */
    private volatile @Nullable String lossReason;
    /** Guarded by this: what the lock kind does when the hold is given up for lost. */
    private LossHandler lossHandler = LossHandler.NONE;
    /** Guarded by this: what the lock kind keeps with the hold, or null. */
    private @Nullable Object attachment;

    Hold(HoldRegistry registry, HoldRegistry.Key key, String lockName, String kind, long token, Timer timer, Ticker ticker) {
        this.registry = registry;
        this.key = key;
        this.lockName = lockName;
        this.kind = kind;
        this.token = token;
        this.timer = timer;
        this.ticker = ticker;
        this.startedNanos = ticker.read();
    }

    /** @return when the hold began, by the client's ticker */
    public long startedNanos() {
        return startedNanos;
    }

    /** @return the owner */
    public long owner() {
        return key.owner();
    }

    /**
     * @param nowNanos a reading of the client's ticker
     * @return true if the lease as last confirmed by Redis still runs at {@code nowNanos}
     */
    public synchronized boolean confirmedAt(long nowNanos) {
        return confirmed && confirmedUntilNanos - nowNanos > 0;
    }

    /**
     * @param nowNanos a reading of the client's ticker
     * @return how long the lease as last confirmed by Redis still runs at {@code nowNanos}, 0 if
     *     it ran out (or nothing confirmed it yet)
     */
    public synchronized long leaseLeftNanos(long nowNanos) {
        return confirmed ? Math.max(0, confirmedUntilNanos - nowNanos) : 0;
    }

    /** @return true if held with no watchdog level left unreleased: a kind that renews it by other means stops now */
    public synchronized boolean watchdogLevelsReleasing() {
        return state == State.HELD && !levels.renewed();
    }

    /** @return the lock's kind, as events name it ({@code "plain"}, {@code "fair"}, …) */
    public String kind() {
        return kind;
    }

    /** @return the hold's fencing token */
    public long token() {
        return token;
    }

    /** @return the lock's name */
    public String lockName() {
        return lockName;
    }

    /** @return completes when the hold is found lost; never after a normal release */
    public CompletableFuture<Void> lost() {
        return lost;
    }

    /** @return the hold's one public loss notice, a copy of {@link #lost()}, the same for every handle */
    public CompletableFuture<Void> notice() {
        return notice;
    }

    /** @return true while held: not released, not lost */
    public synchronized boolean isHeld() {
        return state == State.HELD;
    }

    /** @return how the lease was lost, or null while it is not */
    public @Nullable String lossReason() {
        return lossReason;
    }

    /** @return true once lost, whether or not the owner has been told by an unlock yet */
    public boolean isLost() {
        return lost.isDone();
    }

    /**
     * @return true from the moment the hold is given up for lost, also while its kind is still
     *     being told ({@link #lost()} completes after that); a caller that acts on the loss waits
     *     for {@link #lost()}, so that its kind's cleanup comes first
     */
    public synchronized boolean isGivenUp() {
        return state == State.LOST || lost.isDone();
    }

    /**
     * Sets what the lock kind does when the client gives the hold up for lost, if nothing is set
     * yet: the first grant's kind sets it, a re-entry finds it set.
     *
     * @param handler stops renewing, and ends the hold in Redis where it may still be there
     */
    public synchronized void onLoss(LossHandler handler) {
        if (lossHandler == LossHandler.NONE) {
            lossHandler = handler;
        }
    }

    /**
     * Keeps what the lock kind tracks of the hold beside its record (RedLock: the quorum of the
     * masters' leases), in place of what it kept before.
     *
     * @param kept what to keep
     */
    public synchronized void attach(Object kept) {
        attachment = kept;
    }

    /**
     * @param type the type of what the lock kind keeps
     * @param <T> that type
     * @return what the lock kind keeps with the hold, or null if it keeps nothing of that type
     */
    public synchronized <T> @Nullable T attachment(Class<T> type) {
        return type.isInstance(attachment) ? type.cast(attachment) : null;
    }

    /**
     * One more level, granted with a lease that Redis confirmed until {@code untilNanos}.
     *
     * @param untilNanos the grant's send time plus its lease, by the client's ticker
     * @param watchdog true if the level took the watchdog lease
     */
    void enter(long untilNanos, boolean watchdog) {
        synchronized (this) {
            levels.enter(watchdog);
        }
        confirm(untilNanos);
    }

    /**
     * @return true while held and one of its levels took the watchdog lease (and its release was
     *     not asked for yet): the watchdog renews the hold exactly then, if its kind started it
     */
    public synchronized boolean renewed() {
        return state == State.HELD && levels.renewed();
    }

    /**
     * After a grant: starts the hold's watchdog renewal unless it runs or no level took the
     * watchdog lease. The hold cancels it with its last watchdog level, or when lost or ended.
     *
     * @param watchdog starts the renewal, told to this hold, and answers its registration
     */
    public synchronized void renewWith(Supplier<LeaseRegistration> watchdog) {
        if (state == State.HELD) {
            levels.renewWith(watchdog);
        }
    }

    /**
     * The owner asks to release the innermost level: it stops counting for renewal before Redis
     * answers, so a release whose answer is lost never leaves the hold renewed; {@link #leave()} follows.
     */
    public synchronized void releasing() {
        if (state == State.HELD) {
            levels.releasing();
        }
    }

    /**
     * Redis confirmed the lease until {@code untilNanos} (a renewal, or a grant): the lease is
     * taken as run out only after it. An earlier time than one confirmed before changes nothing.
     *
     * @param untilNanos the confirming request's send time plus the lease it set, by the client's ticker
     */
    public void confirm(long untilNanos) {
        synchronized (this) {
            if (state != State.HELD) {
                return;
            }
            if (!confirmed || untilNanos - confirmedUntilNanos > 0) {
                confirmedUntilNanos = untilNanos;
                confirmed = true;
            }
            if (check == null) {
                scheduleCheck();
            }
        }
    }

    @Override
    public void renewed(long sentAtNanos, long untilNanos) {
        confirm(untilNanos);
    }

    @Override
    public void foundGone() {
        lose("a renewal found it gone from Redis", false);
    }

    /** Guarded by this. */
    private void scheduleCheck() {
        try {
            check = timer.newTimeout(timeout -> checkLease(), Math.max(0, confirmedUntilNanos - ticker.read()),
                    TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            check = null; // the client is closing: nothing reports losses any more
        }
    }

    private void checkLease() {
        synchronized (this) {
            check = null;
            if (state != State.HELD) {
                return;
            }
            if (confirmedUntilNanos - ticker.read() > 0) {
                scheduleCheck(); // a renewal moved the lease on meanwhile
                return;
            }
        }
        lose("its lease ran out before it was released or renewed", true);
    }

    /**
     * The hold is gone, or must be taken as gone. The first call wins: it logs at WARN, lets
     * the lock kind stop renewing and clean up, and completes {@link #lost()}.
     *
     * @param how what happened, for the log and the exception the owner will see
     * @param mayRemainInRedis true if Redis may still have the hold (its lease was only taken as
     *     run out), so that the lock kind ends it there before the owner's next call
     */
    public void lose(String how, boolean mayRemainInRedis) {
        if (markLost(how)) {
            log.warn("Lease of lock '{}' held by owner {} was lost: {}, so another owner may now hold the lock",
                    lockName, key.owner(), how);
            reportLoss(how, mayRemainInRedis);
        }
    }

    /** The client is closing: the hold is lost, as nothing renews it any more; logged at INFO, as the owner's choice. */
    void loseAtClose() {
        String how = "the client was closed while it was held, so nothing renews its lease any more";
        if (markLost(how)) {
            log.info("Lock '{}' was still held by owner {} when its client was closed: its lease is no longer renewed",
                    lockName, key.owner());
            reportLoss(how, false);
        }
    }

    /** @return true for the first loss: the caller reports it */
    private boolean markLost(String how) {
        synchronized (this) {
            if (state != State.HELD) {
                return false;
            }
            state = State.LOST;
            lossReason = how;
            stopWatching();
            return true;
        }
    }

    /** Tells the lock kind, then the events and whoever waits on {@link #lost()}, of the loss {@code how} that {@link #markLost} marked. */
    private void reportLoss(String how, boolean mayRemainInRedis) {
        LossHandler handler;
        synchronized (this) {
            handler = lossHandler;
        }
        try {
            handler.lost(this, mayRemainInRedis);
        } finally {
            if (registry.events().enabled()) {
                registry.events().leaseLost(new LockEventListener.LeaseLost(lockName, key.owner(), token, how));
            }
            lost.complete(null);
        }
    }

    /**
     * One level released, answered or failed: the one {@link #releasing()} took off, or the innermost.
     *
     * @return true if that was the last: the hold is over, and left the registry
     */
    public boolean leave() {
        synchronized (this) {
            if (state != State.HELD || !levels.leave()) {
                return false;
            }
            state = State.OVER;
            stopWatching();
        }
        registry.remove(this);
        return true;
    }

    /** Ends a lost hold: the owner was told, and its next acquisition is a new hold. */
    public void end() {
        synchronized (this) {
            state = State.OVER;
            stopWatching();
        }
        registry.remove(this);
    }

    /** Guarded by this: the hold no longer counts on its lease, nor renews it. */
    private void stopWatching() {
        levels.stopRenewal();
        if (check != null) {
            check.cancel();
            check = null;
        }
    }

    HoldRegistry.Key key() {
        return key;
    }

    @Override
    public String toString() {
        return "Hold{lock '" + lockName + "', owner " + key.owner() + ", token " + token + '}';
    }

    /** What a lock kind does when the client gives one of its holds up for lost. */
    @FunctionalInterface
    public interface LossHandler {

        /** For holds whose kind has nothing to stop. */
        LossHandler NONE = (hold, mayRemainInRedis) -> { };

        /**
         * Called once, on the thread that found the loss; must not block.
         *
         * @param hold the lost hold
         * @param mayRemainInRedis true if Redis may still have it: end it there before the
         *     owner's next call
         */
        void lost(Hold hold, boolean mayRemainInRedis);
    }
}
