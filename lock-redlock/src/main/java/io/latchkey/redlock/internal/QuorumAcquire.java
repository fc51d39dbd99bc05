package io.latchkey.redlock.internal;

import io.latchkey.spi.Hold;
import io.latchkey.spi.KindFailures;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.ArrayList;
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
import org.jspecify.annotations.Nullable;

/**
 * One RedLock try: ask every master at once, each with the whole lease as a fixed lease and each
 * bounded by its attempt timeout; decide by {@link Votes} once all have answered or timed out;
 * on success agree a fencing token ({@link FencingQuorum}) and start the quorum's renewal
 * ({@link QuorumLease}); otherwise give back every partial grant, those that come late included,
 * and say when to try again. How a try reaches each master is its {@link PartTries}': an owner's
 * own hold by default; with local hand-off, the cohort's hold, which reserves a block of tokens on
 * each master, or an owner's own hold that marks the client as waiting. Thread-safe; never blocks.
 */
final class QuorumAcquire {

    // RedLockProtocol's category, as before this class was split from it: log configurations name it.
    private static final Logger log = LoggerFactory.getLogger(RedLockProtocol.class);

    private final RedLockProtocol lock;
    private final String name;
    private final List<Master> masters;
    private final int majority;
    private final Ticker ticker;
    /** The longest attempt timeout: how long one try may take. */
    private final long retryBaseNanos;
    /** The spread of retries that start together; see {@link RedLockProtocol}. */
    private final long jitterNanos;
    private final PartTries parts;

    /** How a try reaches each master. */
    interface PartTries {

        /** An owner's own hold on each master, as without local hand-off; one token per hold. */
        PartTries OWN = new PartTries() {
            @Override
            public CompletableFuture<TryResult> tryOn(Master master, long owner, LeaseTerm lease, boolean newHold) {
                return master.tryAcquire(owner, lease, newHold);
            }

            @Override
            public int tokenBlock() {
                return 1;
            }
        };

        /**
         * @param newHold as for {@link Master#tryAcquire}
         * @return the master's answer
         */
        CompletableFuture<TryResult> tryOn(Master master, long owner, LeaseTerm lease, boolean newHold);

        /** @return how many tokens a new hold reserves on each master: its own, and one per local hand-off */
        int tokenBlock();
    }

    QuorumAcquire(RedLockProtocol lock, long retryBaseNanos, long jitterNanos, PartTries parts) {
        this.parts = parts;
        this.lock = lock;
        this.name = lock.name();
        this.masters = lock.masters();
        this.majority = lock.majority();
        this.ticker = lock.ticker();
        this.retryBaseNanos = retryBaseNanos;
        this.jitterNanos = jitterNanos;
    }

    /**
     * @param owner the owner that tries
     * @param lease the lease each master grants
     * @param heldToken the token of the hold a re-entry re-enters, 0 for a new hold
     * @return acquired, with the quorum's renewal, or the retry bound; fails with LockException
     *     when fewer than a majority answered
     */
    CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
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
            CompletableFuture<TryResult> reply = parts.tryOn(master, owner, lease, heldToken == 0);
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
        boolean anotherClientWaits = false;
        Throwable failure = null;
        for (int i = 0; i < masters.size(); i++) {
            CompletableFuture<TryResult> answer = answers.get(i);
            if (answer.isCompletedExceptionally()) {
                Throwable cause = RedLockProtocol.failureOf(answer);
                if (cause instanceof TimeoutException) {
                    cause = RedLockFailures.masterTimedOut(masters.get(i).toString(), masters.get(i).attemptTimeout());
                    failure = failure == null ? cause : failure;
                } else if (KindFailures.isTimeout(cause)) {
                    cause = RedLockFailures.masterTimedOut(masters.get(i).toString(), cause);
                    failure = failure == null ? cause : failure;
                } else if (failure == null || sent.get(i).isCompletedExceptionally()) {
                    failure = cause; // a Redis failure says more than a slow answer
                }
                releaseWhenAnswered(masters.get(i), owner, heldToken, sent.get(i));
                continue;
            }
            TryResult result = answer.join();
            if (result.acquired()) {
                TryResult.Grant grant = Objects.requireNonNull(result.grant(), "an acquired result has its grant");
                votes.granted(masters.get(i));
                tokens.put(masters.get(i), grant.fencingToken());
                anotherClientWaits |= grant.anotherClientWaits();
            } else {
                votes.refused(result.waitMillis());
            }
        }
        Votes.Outcome outcome = votes.decide(validityLeftNanos);
        if (outcome == Votes.Outcome.ACQUIRED) {
            boolean othersWait = anotherClientWaits;
            if (heldToken != 0) {
                return CompletableFuture.completedFuture(granted(owner, lease, heldToken, tokens, validUntilNanos, othersWait));
            }
            long token = FencingQuorum.tokenOf(tokens);
            if (FencingQuorum.alreadyStands(tokens, token, majority)) {
                return CompletableFuture.completedFuture(granted(owner, lease, token, tokens, validUntilNanos, othersWait));
            }
            long lastToken = token + parts.tokenBlock() - 1;
            return FencingQuorum.raise(tokens, token, lastToken, majority).thenCompose(standing -> {
                if (standing && validUntilNanos - ticker.read() > 0) {
                    return CompletableFuture.completedFuture(granted(owner, lease, token, tokens, validUntilNanos, othersWait));
                }
                // Too few raised in time: the token could not be trusted, so the try counts as late.
                return giveBack(owner, Votes.Outcome.TOO_LATE, votes, votes.granted(), null);
            });
        }
        return giveBack(owner, outcome, votes, votes.toRelease(outcome), failure);
    }

    /**
     * @param tokens the granting masters, each with the token it gave its part of the hold
     * @param anotherClientWaits true if a granting master's waiting mark named another client
     */
    private TryResult granted(long owner, LeaseTerm lease, long token, Map<Master, Long> tokens, long validUntilNanos,
                              boolean anotherClientWaits) {
        List<Master> granted = List.copyOf(tokens.keySet());
        return TryResult.acquired(new QuorumGrant() {
            @Override
            public long fencingToken() {
                return token;
            }

            @Override
            public long confirmedUntilNanos() {
                return validUntilNanos;
            }

            @Override
            public boolean anotherClientWaits() {
                return anotherClientWaits;
            }

            @Override
            public Map<Master, Long> parts() {
                return tokens;
            }

            @Override
            public void start(Hold hold) {
                // The first grant's masters: a hold given up for lost while they may still have it
                // (its lease ran out by the client's reckoning, which allows for drift) is ended there.
                hold.onLoss((lost, mayRemainInRedis) -> {
                    QuorumLease renewed = QuorumLease.of(lost);
                    if (renewed != null) {
                        renewed.stop();
                    }
                    if (mayRemainInRedis) {
                        tokens.forEach((master, part) -> master.endLost(owner, part));
                    }
                });
                try {
                    QuorumLease.acquired(lock, owner, lease, granted, validUntilNanos, hold);
                } catch (RuntimeException e) {
                    // Held all the same: failing now would leave the caller a hold it does not know of.
                    log.warn("RedLock '{}': the hold of owner {} will not be renewed", name, owner, e);
                }
            }
        });
    }

    /** Releases the grants of a try that did not acquire, then answers as the outcome says. */
    private CompletableFuture<TryResult> giveBack(long owner, Votes.Outcome outcome, Votes<Master> votes,
                                                  List<Master> grants, @Nullable Throwable failure) {
        int answered = votes.answered();
        CompletableFuture<?>[] releases = grants.stream()
                .map(master -> master.release(owner).exceptionally(releaseFailure -> {
                    log.debug("RedLock '{}': releasing a partial grant on {} failed; its lease will run out", name, master, releaseFailure);
                    return null;
                }))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(releases).thenApply(released -> {
            if (answered < majority) {
                throw RedLockFailures.quorumNotReachedInTime(name, answered, masters.size(), majority, failure);
            }
            return TryResult.busy(retryAfterMillis(outcome, votes));
        });
    }

    /**
     * A master that did not answer within the attempt timeout may still grant: release that grant
     * once it is known. A grant whose answer is lost for good (reset, Redis timeout) is the
     * master's own protocol's to settle: it undoes exactly that grant once the master answers, so
     * releasing here too would take back one hold too many.
     *
     * <p>A late new hold is ended by its token, not released by one level: the owner's next try,
     * sent after this one is tried again, waits on the master behind the late one and replaces
     * its hold with one of a new token, which a release queued behind it would take back while the
     * RedLock counts it.
     */
    private void releaseWhenAnswered(Master master, long owner, long heldToken, CompletableFuture<TryResult> sent) {
        sent.whenComplete((answer, failure) -> {
            if (failure == null && answer.acquired() && heldToken == 0) {
                master.endLost(owner, Objects.requireNonNull(answer.grant(), "an acquired result has its grant").fencingToken());
            } else if (failure == null && answer.acquired()) {
                master.release(owner).whenComplete((ok, releaseFailure) -> {
                    if (releaseFailure != null && !(KindFailures.unwrap(releaseFailure) instanceof IllegalMonitorStateException)) {
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

    /** A quorum's grant: also which masters granted it, and the token each gave its part. */
    interface QuorumGrant extends TryResult.Grant {

        /**
         * @return the granting masters, each with the token it gave its part; the first of a
         *     block of tokens where a new hold reserves one
         */
        Map<Master, Long> parts();

        /**
         * @param granted a result of {@link QuorumAcquire#tryAcquire} that acquired
         * @return the granting masters and their tokens
         */
        static Map<Master, Long> partsOf(TryResult granted) {
            return ((QuorumGrant) Objects.requireNonNull(granted.grant(), "an acquired result has its grant")).parts();
        }
    }
}
