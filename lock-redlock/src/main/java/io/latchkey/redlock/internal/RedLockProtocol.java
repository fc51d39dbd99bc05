package io.latchkey.redlock.internal;

import io.latchkey.DistributedLock;
import io.latchkey.LockConfig;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.KindFailures;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockFacades;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.PlainLock;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The RedLock algorithm over the plain locks of one name on N independent masters.
 *
 * <p>A try ({@link QuorumAcquire}) asks every master at once, each with the whole lease as a
 * fixed lease and each bounded by its attempt timeout. It succeeds when a majority (N/2+1)
 * granted and the lease, less the time the try took and the clock-drift allowance, is still
 * positive. Otherwise every master is released: those that granted before the answer is given,
 * those that did not answer as soon as they do. Re-entry needs nothing of its own: each master
 * counts the owner's holds. An unlock is decided by {@link ReleaseVotes}.
 *
 * <p>Renewal belongs to the masters' watchdogs; {@link QuorumLease} watches that a majority of
 * them keep succeeding. Queries answer what a majority says ({@link MajorityQueries}).
 *
 * <p>Thread-safe; never blocks. Its futures complete on the thread that brings the last answer a
 * decision waits for: a master client's I/O thread, or, when that answer is a master's attempt
 * timeout, that client's timer thread (see {@link AnswerDeadline}), never a thread of the JDK's.
 */
public final class RedLockProtocol implements LockProtocol {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    static final int MIN_MASTERS = 3;

    private final String name;
    private final List<Master> masters;
    private final int majority;
    private final Timer timer;
    private final Ticker ticker;
    /** The longest attempt timeout of the masters: how long one try may take. */
    private final long retryBaseNanos;
    /**
     * The spread of retries that start together (woken by one unlock, or at one expiry): far
     * more than a try takes on a healthy network, so the first contender is usually done before
     * the next one starts.
     */
    private final long jitterNanos;
    private final LostLeaseListener lostLeaseListener;
    private final HoldRegistry holdRegistry;
    private final Object identity;
    private final QuorumAcquire acquire;
    private final MajorityQueries queries;

    private RedLockProtocol(String name, List<Master> masters, Timer timer, Ticker ticker,
                            HoldRegistry holdRegistry, LostLeaseListener lostLeaseListener) {
        this.name = name;
        this.masters = List.copyOf(masters);
        this.majority = Votes.majorityOf(masters.size());
        this.timer = timer;
        this.ticker = ticker;
        this.retryBaseNanos = masters.stream().mapToLong(Master::attemptTimeoutNanos).max().orElseThrow();
        this.jitterNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), retryBaseNanos / 4);
        this.lostLeaseListener = lostLeaseListener;
        this.holdRegistry = holdRegistry;
        this.identity = new Identity(name, masters.stream().map(Master::identity).toList());
        this.acquire = new QuorumAcquire(this, retryBaseNanos, jitterNanos, QuorumAcquire.PartTries.OWN);
        this.queries = new MajorityQueries(name, this.masters, majority);
    }

    /** Equal for every RedLock object of one name over the same masters of one client. */
    private record Identity(String name, List<Object> masters) {
    }

    /**
     * @param locks the plain locks of one name, one per independent master, each from a client of
     *     its own
     * @param lostLeaseListener told after a renewed hold was lost and logged
     * @return the RedLock over them
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalArgumentException if there are fewer than three locks, one is not a plain lock
     *     of {@code LockClient.getLock}, their names differ, or two share a client or an address
     */
    public static RedLockProtocol over(DistributedLock[] locks, LostLeaseListener lostLeaseListener) {
        Objects.requireNonNull(locks, "locks");
        Objects.requireNonNull(lostLeaseListener, "lostLeaseListener");
        if (locks.length < MIN_MASTERS) {
            throw new IllegalArgumentException("a RedLock needs at least " + MIN_MASTERS
                    + " locks, one per independent master, got " + locks.length);
        }
        List<Master> masters = new ArrayList<>(locks.length);
        Map<String, Integer> clients = new HashMap<>();
        Map<String, Integer> addresses = new HashMap<>();
        for (int i = 0; i < locks.length; i++) {
            DistributedLock lock = Objects.requireNonNull(locks[i], "locks[" + i + "]");
            int index = i;
            PlainLock plain = LockFacades.plainLockBehind(lock).orElseThrow(() -> new IllegalArgumentException(
                    "locks[" + index + "] is not a plain lock of LockClient.getLock: " + describe(lock)));
            if (!plain.name().equals(masters.isEmpty() ? plain.name() : masters.get(0).connected().name())) {
                throw new IllegalArgumentException("the locks of a RedLock share one name: locks[0] is '"
                        + masters.get(0).connected().name() + "', locks[" + i + "] is '" + plain.name() + "'");
            }
            Integer sameClient = clients.putIfAbsent(plain.context().clientId(), i);
            if (sameClient != null) {
                throw new IllegalArgumentException("locks[" + sameClient + "] and locks[" + i
                        + "] come from the same LockClient; each master needs a client of its own");
            }
            LockConfig config = plain.context().config();
            Integer sameAddress = config.address().map(address -> addresses.putIfAbsent(address, masters.size())).orElse(null);
            if (sameAddress != null) {
                throw new IllegalArgumentException("locks[" + sameAddress + "] and locks[" + i
                        + "] are on the same Redis; a RedLock needs independent masters");
            }
            masters.add(Master.of(plain, config.redLockAttemptTimeout()));
        }
        return new RedLockProtocol(masters.get(0).connected().name(), masters,
                masters.get(0).context().timer(), masters.get(0).context().ticker(), masters.get(0).context().holds(),
                lostLeaseListener);
    }

    /**
     * @param name the lock's name
     * @param masters every configured master, connected or not
     * @param timer the client's timer, for the waits and checks of this lock
     * @param ticker the client's clock, for the validity of holds and the bounds of waits
     * @param holdRegistry where the client records its holds
     * @param lostLeaseListener told after a renewed hold was lost and logged
     * @return the RedLock over them
     */
    static RedLockProtocol of(String name, List<Master> masters, Timer timer, Ticker ticker,
                              HoldRegistry holdRegistry, LostLeaseListener lostLeaseListener) {
        return new RedLockProtocol(name, masters, timer, ticker, holdRegistry, lostLeaseListener);
    }

    /**
     * @return the shortest watchdog lease among the masters' clients, for a RedLock over plain
     *     locks (every master connected): the lease of {@code lock()} and {@code tryLock(wait)}
     */
    Duration shortestMasterLease() {
        return masters.stream().map(master -> master.context().watchdogLease()).min(Comparator.naturalOrder()).orElseThrow();
    }

    /** A RedLock or a fair lock says what it is; anything else by its class, not by code of its own. */
    private static String describe(DistributedLock lock) {
        return lock.getClass().getName();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String kind() {
        return "red";
    }

    List<Master> masters() {
        return masters;
    }

    int majority() {
        return majority;
    }

    /** The timer of one master's client, for the waits and checks of this lock. */
    @Override
    public Timer timer() {
        return timer;
    }

    /** @return the longest attempt timeout of the masters: how long one try may take */
    @Override
    public Duration commandTimeout() {
        return Duration.ofNanos(retryBaseNanos);
    }

    /** The clock of the client whose timer serves this lock. */
    @Override
    public Ticker ticker() {
        return ticker;
    }

    LostLeaseListener lostLeaseListener() {
        return lostLeaseListener;
    }

    @Override
    public HoldRegistry holdRegistry() {
        return holdRegistry;
    }

    @Override
    public Object identity() {
        return identity;
    }

    // ---- acquire -----------------------------------------------------------------------------

    /**
     * @param parts how each master is tried
     * @return tries of this RedLock that reach the masters so
     */
    QuorumAcquire tries(QuorumAcquire.PartTries parts) {
        return new QuorumAcquire(this, retryBaseNanos, jitterNanos, parts);
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        return acquire.tryAcquire(owner, lease, heldToken);
    }

    // ---- release -----------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> release(long owner) {
        Hold hold = holdRegistry.find(identity, owner);
        QuorumLease quorum = QuorumLease.of(hold);
        if (quorum != null && hold != null && hold.watchdogLevelsReleasing()) {
            // The last watchdog level stops the renewals as its release is sent, as a plain
            // lock's does: a renewal queued behind the release on a master finds the hold gone,
            // which is the owner's release, not a lost lease; and a fixed-lease level left under
            // it runs out at its own end.
            quorum.stopAtRelease();
        }
        QuorumLease renewed = quorum == null || quorum.isOver() ? null : quorum;
        ReleaseVotes votes = new ReleaseVotes(name, owner, masters.size(), majority);
        for (Master master : masters) {
            master.release(owner).whenComplete((ok, failure) -> {
                if (failure == null && renewed != null) {
                    renewed.afterRelease();
                }
                votes.count(failure == null ? null : KindFailures.unwrap(failure));
            });
        }
        return votes.result;
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return DONE; // every try released its partial grants itself
    }

    // ---- waiting -----------------------------------------------------------------------------

    /**
     * Joins the unlock channel of every master, each bounded by its attempt timeout; a master
     * that is down or slow is left out (its subscription, should it come, is dropped at once) and
     * the retry bound stands in for its messages.
     */
    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        List<CompletableFuture<Wakeups>> joins = new ArrayList<>(masters.size());
        List<CompletableFuture<Wakeups>> answers = new ArrayList<>(masters.size());
        for (Master master : masters) {
            CompletableFuture<Wakeups> join = master.wakeups(owner);
            joins.add(join);
            answers.add(master.withinAttemptTimeout(join));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).handle((ignored, failure) -> {
            List<Wakeups> joined = new ArrayList<>(masters.size());
            for (int i = 0; i < masters.size(); i++) {
                if (answers.get(i).isCompletedExceptionally()) {
                    joins.get(i).thenAccept(Wakeups::close);
                } else {
                    joined.add(answers.get(i).join());
                }
            }
            return new RedLockWakeups(joined, timer(), ticker, jitterNanos);
        });
    }

    // ---- queries -----------------------------------------------------------------------------

    /** @return true if a majority of masters had the lock and deleted it */
    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return queries.fromMajority(PlainLock::forceRelease, false).thenApply(queries::majoritySays);
    }

    /** @return true if a majority of masters hold the lock */
    @Override
    public CompletableFuture<Boolean> isLocked() {
        return queries.fromMajority(PlainLock::isLocked, false).thenApply(queries::majoritySays);
    }

    /** @return the most holds that a majority of masters count for the owner */
    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        return queries.fromMajority(master -> master.holdCount(owner), 0).thenApply(queries::majorityValue);
    }

    /** @return the longest time that a majority of masters will still hold the lock */
    @Override
    public CompletableFuture<Duration> remainingLease() {
        return queries.fromMajority(PlainLock::remainingLease, Duration.ZERO).thenApply(queries::majorityValue);
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** @return the failure of a future that failed, unwrapped */
    static Throwable failureOf(CompletableFuture<?> failed) {
        return KindFailures.unwrap(failed.handle((value, failure) -> failure).join());
    }

    @Override
    public String toString() {
        return "RedLock{" + name + " on " + masters + '}';
    }
}
