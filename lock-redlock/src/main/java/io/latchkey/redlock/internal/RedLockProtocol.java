package io.latchkey.redlock.internal;

import io.latchkey.DistributedLock;
import io.latchkey.LockConfig;
import io.latchkey.internal.hold.Hold;
import io.latchkey.internal.hold.HoldRegistry;
import io.latchkey.internal.lock.LeaseTerm;
import io.latchkey.internal.lock.LockProtocol;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.lock.TryResult;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.Ticker;
import io.latchkey.internal.wakeup.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RedLock algorithm over the plain locks of one name on N independent masters.
 *
 * <p>A try asks every master at once, each with the whole lease as a fixed lease and each
 * bounded by its attempt timeout. It succeeds when a majority (N/2+1) granted and the lease,
 * less the time the try took and the clock-drift allowance, is still positive. Otherwise every
 * master is released: those that granted before the answer is given, those that did not answer
 * as soon as they do. Re-entry needs nothing of its own: each master counts the owner's holds.
 *
 * <p>Renewal belongs to the masters' watchdogs; {@link QuorumLease} watches that a majority of
 * them keep succeeding. Queries answer what a majority says.
 *
 * <p>Thread-safe; never blocks. Its futures complete on the thread that brings the last answer a
 * decision waits for: a master client's I/O thread, or, when that answer is a master's attempt
 * timeout, that client's timer thread (see {@link AnswerDeadline}), never a thread of the JDK's.
 */
public final class RedLockProtocol implements LockProtocol {

    private static final Logger log = LoggerFactory.getLogger(RedLockProtocol.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    static final int MIN_MASTERS = 3;

    private final String name;
    private final List<Master> masters;
    private final int majority;
    private final Duration watchdogTimeout;
    private final Timer timer;
    private final Ticker ticker;
    /** The longest attempt timeout: how long one try may take. */
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

    private RedLockProtocol(String name, List<Master> masters, Duration watchdogTimeout, Timer timer, Ticker ticker,
                            HoldRegistry holdRegistry, LostLeaseListener lostLeaseListener) {
        this.name = name;
        this.masters = List.copyOf(masters);
        this.majority = Votes.majorityOf(masters.size());
        this.watchdogTimeout = watchdogTimeout;
        this.timer = timer;
        this.ticker = ticker;
        this.retryBaseNanos = masters.stream().mapToLong(Master::attemptTimeoutNanos).max().orElseThrow();
        this.jitterNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), retryBaseNanos / 4);
        this.lostLeaseListener = lostLeaseListener;
        this.holdRegistry = holdRegistry;
        this.identity = new Identity(name, masters.stream().map(Master::identity).toList());
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
            ReentrantLockProtocol plain = ReentrantLockProtocol.behind(lock).orElseThrow(() -> new IllegalArgumentException(
                    "locks[" + index + "] is not a plain lock of LockClient.getLock: " + describe(lock)));
            if (!plain.name().equals(masters.isEmpty() ? plain.name() : masters.get(0).protocol().name())) {
                throw new IllegalArgumentException("the locks of a RedLock share one name: locks[0] is '"
                        + masters.get(0).protocol().name() + "', locks[" + i + "] is '" + plain.name() + "'");
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
        Duration watchdogTimeout = masters.stream().map(master -> master.context().config().watchdogTimeout())
                .min(Comparator.naturalOrder()).orElseThrow();
        return new RedLockProtocol(masters.get(0).protocol().name(), masters, watchdogTimeout,
                masters.get(0).context().timer(), masters.get(0).context().ticker(), masters.get(0).context().holds(),
                lostLeaseListener);
    }

    /**
     * @param name the lock's name
     * @param masters every configured master, connected or not
     * @param watchdogTimeout the lease of {@code lock()} and {@code tryLock(wait)}
     * @param timer the client's timer, for the waits and checks of this lock
     * @param ticker the client's clock, for the validity of holds and the bounds of waits
     * @param holdRegistry where the client records its holds
     * @param lostLeaseListener told after a renewed hold was lost and logged
     * @return the RedLock over them
     */
    static RedLockProtocol of(String name, List<Master> masters, Duration watchdogTimeout, Timer timer, Ticker ticker,
                              HoldRegistry holdRegistry, LostLeaseListener lostLeaseListener) {
        return new RedLockProtocol(name, masters, watchdogTimeout, timer, ticker, holdRegistry, lostLeaseListener);
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

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(lease.millis());
        long validNanos = leaseNanos - Master.driftNanos(leaseNanos);
        if (validNanos <= 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "leaseTime of a RedLock must exceed its clock-drift allowance (1 % + 2 ms): " + Duration.ofMillis(lease.millis())));
        }
        long startNanos = ticker.read();
        List<CompletableFuture<TryResult>> sent = new ArrayList<>(masters.size());
        List<CompletableFuture<TryResult>> answers = new ArrayList<>(masters.size());
        for (Master master : masters) {
            CompletableFuture<TryResult> reply = master.tryAcquire(owner, lease, heldToken == 0);
            sent.add(reply);
            answers.add(master.withinAttemptTimeout(reply));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .handle((ignored, failure) -> decide(owner, lease, heldToken, startNanos + validNanos, sent, answers))
                .thenCompose(Function.identity());
    }

    /**
     * @param heldToken the token of the hold a re-entry re-enters, 0 for a new hold
     * @param validUntilNanos when the hold stops being safe to rely on: start + lease − drift
     * @return acquired, with the quorum's renewal, or the retry bound; fails with LockException
     *     when fewer than a majority answered
     */
    private CompletableFuture<TryResult> decide(long owner, LeaseTerm lease, long heldToken, long validUntilNanos,
                                                List<CompletableFuture<TryResult>> sent,
                                                List<CompletableFuture<TryResult>> answers) {
        long validityLeftNanos = validUntilNanos - ticker.read();
        Votes<Master> votes = new Votes<>(masters.size());
        Map<Master, Long> tokens = new LinkedHashMap<>();
        Throwable failure = null;
        for (int i = 0; i < masters.size(); i++) {
            CompletableFuture<TryResult> answer = answers.get(i);
            if (answer.isCompletedExceptionally()) {
                Throwable cause = failureOf(answer);
                if (cause instanceof TimeoutException) {
                    cause = LockExceptions.masterTimedOut(masters.get(i).toString(), masters.get(i).attemptTimeout());
                    failure = failure == null ? cause : failure;
                } else if (LockExceptions.isTimeout(cause)) {
                    cause = LockExceptions.masterTimedOut(masters.get(i).toString(), cause);
                    failure = failure == null ? cause : failure;
                } else if (failure == null || sent.get(i).isCompletedExceptionally()) {
                    failure = cause; // a Redis failure says more than a slow answer
                }
                releaseWhenAnswered(masters.get(i), owner, sent.get(i));
                continue;
            }
            TryResult result = answer.join();
            if (result.acquired()) {
                votes.granted(masters.get(i));
                tokens.put(masters.get(i), result.grant().fencingToken());
            } else {
                votes.refused(result.waitMillis());
            }
        }
        Votes.Outcome outcome = votes.decide(validityLeftNanos);
        if (outcome == Votes.Outcome.ACQUIRED) {
            if (heldToken != 0) {
                return CompletableFuture.completedFuture(granted(owner, lease, heldToken, tokens, validUntilNanos));
            }
            long token = FencingQuorum.tokenOf(tokens);
            if (FencingQuorum.alreadyStands(tokens, token, majority)) {
                return CompletableFuture.completedFuture(granted(owner, lease, token, tokens, validUntilNanos));
            }
            return FencingQuorum.raise(tokens, token, majority).thenCompose(standing -> {
                if (standing && validUntilNanos - ticker.read() > 0) {
                    return CompletableFuture.completedFuture(granted(owner, lease, token, tokens, validUntilNanos));
                }
                // Too few raised in time: the token could not be trusted, so the try counts as late.
                return giveBack(owner, Votes.Outcome.TOO_LATE, votes, votes.granted(), null);
            });
        }
        return giveBack(owner, outcome, votes, votes.toRelease(outcome), failure);
    }

    /** @param tokens the granting masters, each with the token it gave its part of the hold */
    private TryResult granted(long owner, LeaseTerm lease, long token, Map<Master, Long> tokens, long validUntilNanos) {
        List<Master> granted = List.copyOf(tokens.keySet());
        return TryResult.acquired(new TryResult.Grant() {
            @Override
            public long fencingToken() {
                return token;
            }

            @Override
            public long confirmedUntilNanos() {
                return validUntilNanos;
            }

            @Override
            public void start(Hold hold) {
                // The first grant's masters: a hold given up for lost while they may still have it
                // (its lease ran out by the client's reckoning, which allows for drift) is ended there.
                hold.onLoss((lost, mayRemainInRedis) -> {
                    QuorumLease renewed = QuorumLease.find(masters, owner);
                    if (renewed != null) {
                        renewed.stop();
                    }
                    if (mayRemainInRedis) {
                        tokens.forEach((master, part) -> master.endLost(owner, part));
                    }
                });
                try {
                    QuorumLease.acquired(RedLockProtocol.this, owner, lease, granted, validUntilNanos, hold);
                } catch (RuntimeException e) {
                    // Held all the same: failing now would leave the caller a hold it does not know of.
                    log.warn("RedLock '{}': the hold of owner {} will not be renewed", name, owner, e);
                }
            }
        });
    }

    /** Releases the grants of a try that did not acquire, then answers as the outcome says. */
    private CompletableFuture<TryResult> giveBack(long owner, Votes.Outcome outcome, Votes<Master> votes,
                                                  List<Master> grants, Throwable failure) {
        int answered = votes.answered();
        CompletableFuture<?>[] releases = grants.stream()
                .map(master -> master.release(owner).exceptionally(releaseFailure -> {
                    log.debug("RedLock '{}': releasing a partial grant on {} failed; its lease will run out", name, master, releaseFailure);
                    return null;
                }))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(releases).thenApply(released -> {
            if (answered < majority) {
                throw LockExceptions.quorumNotReachedInTime(name, answered, masters.size(), majority, failure);
            }
            return TryResult.busy(retryAfterMillis(outcome, votes));
        });
    }

    /**
     * A master that did not answer within the attempt timeout may still grant: release that grant
     * once it is known. A grant whose answer is lost for good (reset, Redis timeout) is the
     * master's own protocol's to settle: it undoes exactly that grant once the master answers, so
     * releasing here too would take back one hold too many.
     */
    private void releaseWhenAnswered(Master master, long owner, CompletableFuture<TryResult> sent) {
        sent.whenComplete((answer, failure) -> {
            if (failure == null && answer.acquired()) {
                master.release(owner).whenComplete((ok, releaseFailure) -> {
                    if (releaseFailure != null && !(LockExceptions.unwrap(releaseFailure) instanceof IllegalMonitorStateException)) {
                        log.debug("RedLock '{}': releasing a late grant on {} failed; its lease will run out", name, master, releaseFailure);
                    }
                });
            }
        });
    }

    /**
     * When to try again without a wake-up. If others hold the lock: once enough of their leases
     * have run out for a majority to be free, plus a random share of the jitter. If a majority
     * granted but too late: after a random delay between one and two attempt timeouts, as the
     * algorithm prescribes, so that contenders who failed together do not fail together again.
     */
    private long retryAfterMillis(Votes.Outcome outcome, Votes<Master> votes) {
        long waitNanos;
        if (outcome == Votes.Outcome.HELD) {
            long millis = votes.majorityFreeInMillis();
            if (millis < 0) {
                return -1; // a key without expiry: only an unlock message can end the wait
            }
            waitNanos = TimeUnit.MILLISECONDS.toNanos(millis) + ThreadLocalRandom.current().nextLong(jitterNanos);
        } else {
            waitNanos = retryBaseNanos + ThreadLocalRandom.current().nextLong(retryBaseNanos);
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos));
    }

    // ---- release -----------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> release(long owner) {
        QuorumLease renewed = QuorumLease.find(masters, owner);
        ReleaseVotes votes = new ReleaseVotes(owner);
        for (Master master : masters) {
            master.release(owner).whenComplete((ok, failure) -> {
                if (failure == null && renewed != null) {
                    renewed.afterRelease();
                }
                votes.count(failure == null ? null : LockExceptions.unwrap(failure));
            });
        }
        return votes.result;
    }

    /** Decides an unlock as soon as the masters' answers allow, without waiting for a slow one. */
    private final class ReleaseVotes {
        final CompletableFuture<Void> result = new CompletableFuture<>();
        private final long owner;
        private int released;
        private int notHeld;
        private int failed;
        private Throwable failure;

        ReleaseVotes(long owner) {
            this.owner = owner;
        }

        synchronized void count(Throwable outcome) {
            if (outcome == null) {
                released++;
            } else if (outcome instanceof IllegalMonitorStateException) {
                notHeld++;
            } else {
                failed++;
                failure = failure == null ? outcome : failure;
            }
            if (released >= majority) {
                result.complete(null);
            } else if (notHeld > masters.size() - majority) {
                result.completeExceptionally(LockExceptions.notHeldByMajority(name, owner, notHeld, masters.size()));
            } else if (released + notHeld + failed == masters.size()) {
                result.completeExceptionally(LockExceptions.releaseQuorumNotReached(name, released, failed, masters.size(),
                        majority, failure));
            }
        }
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
        return fromMajority(ReentrantLockProtocol::forceRelease, false).thenApply(this::majoritySays);
    }

    /** @return true if a majority of masters hold the lock */
    @Override
    public CompletableFuture<Boolean> isLocked() {
        return fromMajority(ReentrantLockProtocol::isLocked, false).thenApply(this::majoritySays);
    }

    /** @return the most holds that a majority of masters count for the owner */
    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        return fromMajority(master -> master.holdCount(owner), 0).thenApply(this::majorityValue);
    }

    /** @return the longest time that a majority of masters will still hold the lock */
    @Override
    public CompletableFuture<Duration> remainingLease() {
        return fromMajority(ReentrantLockProtocol::remainingLease, Duration.ZERO).thenApply(this::majorityValue);
    }

    /** @return the shortest watchdog lease among the masters' clients */
    @Override
    public Duration watchdogTimeout() {
        return watchdogTimeout;
    }

    /**
     * Asks every master; fails with LockException unless a majority answered, and counts a master
     * that did not answer as one that says {@code unanswered}.
     */
    private <T> CompletableFuture<List<T>> fromMajority(Function<ReentrantLockProtocol, CompletableFuture<T>> query, T unanswered) {
        List<CompletableFuture<T>> replies = new ArrayList<>(masters.size());
        for (Master master : masters) {
            replies.add(master.call(query));
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).handle((ignored, ignoredFailure) -> {
            List<T> values = new ArrayList<>(replies.size());
            Throwable failure = null;
            int answered = 0;
            for (CompletableFuture<T> reply : replies) {
                if (reply.isCompletedExceptionally()) {
                    failure = failure == null ? failureOf(reply) : failure;
                    values.add(unanswered);
                } else {
                    values.add(reply.join());
                    answered++;
                }
            }
            if (answered < majority) {
                throw LockExceptions.quorumNotReached(name, answered, masters.size(), majority, failure);
            }
            return values;
        });
    }

    private boolean majoritySays(List<Boolean> answers) {
        return answers.stream().filter(Boolean::booleanValue).count() >= majority;
    }

    /** @return the value that at least a majority of masters reach: the majority-th largest */
    private <T extends Comparable<? super T>> T majorityValue(List<T> answers) {
        List<T> sorted = new ArrayList<>(answers);
        sorted.sort(Comparator.reverseOrder());
        return sorted.get(majority - 1);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private static Throwable failureOf(CompletableFuture<?> failed) {
        return LockExceptions.unwrap(failed.handle((value, failure) -> failure).join());
    }

    @Override
    public String toString() {
        return "RedLock{" + name + " on " + masters + '}';
    }
}
