package io.latchkey.redlock.internal;

import io.latchkey.spi.CohortRedis;
import io.latchkey.spi.CountedHolds;
import io.latchkey.spi.KindFailures;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LocalHandOffs;
import io.latchkey.spi.PlainLock;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of a RedLock's cohort (local hand-off): the plain lock's cohort, which passes the
 * hold between the owners of one client, sees a RedLock's quorum as it sees a plain lock's hold.
 * Each master has a part ({@link Cohorts#part}: the plain lock's cohort calls under the cohort's
 * owner id, with the waiting mark and the turn); this side combines them as the RedLock does:
 * <ul>
 *   <li>the cohort's try is a RedLock try ({@link QuorumAcquire}) of the parts, which reserves a
 *       block of tokens on each granting master and raises a majority to the block's end
 *       ({@link FencingQuorum}); its lease as confirmed is the quorum's validity;</li>
 *   <li>the renewals of the parts are the quorum's ({@link CohortQuorum}): confirmed, doubted and
 *       lost as the RedLock's own holds are;</li>
 *   <li>a release, an end, a withdrawal of the client's mark go to every master, and a release is
 *       decided as the RedLock's own ({@link ReleaseVotes}); a read of the mark or of the hold asks
 *       every master, and another client's mark on any one of them counts;</li>
 *   <li>the owners' own holds (fixed leases) are RedLock holds as without hand-off, whose tries
 *       mark the client as waiting on each master as the cohort's do.</li>
 * </ul>
 * Thread-safe; never blocks.
 */
final class RedLockRedis implements CohortRedis {

    /** How long a turn that a release reserved for a waiting client lasts: as the plain lock's cohort (PlainLockRedis). */
    private static final Duration TURN = Duration.ofMillis(250);
    private static final String FORCED = "!force:";

    private final RedLockProtocol lock;
    private final long self;
    private final int tokenBlock;
    private final String client;
    private final Duration commandTimeout;
    private final Duration mark;
    private final QuorumAcquire cohortTries;
    private final QuorumAcquire ownTries;
    private final Map<Master, CohortRedis> cohortParts = new ConcurrentHashMap<>();
    private final Map<Master, CountedHolds> ownParts = new ConcurrentHashMap<>();
    /** The cohort's hold in Redis, from its grant to its release or end; null otherwise. */
    private volatile @Nullable CohortQuorum<Master> held;

    /**
     * @param lock the RedLock
     * @param self the cohort's owner id on every master
     * @param tokenBlock how many tokens the cohort's hold reserves
     * @param client the client's id, as every master's scripts see it
     * @param commandTimeout the client's command timeout
     * @param mark the client's watchdog lease: how long a waiting mark lasts
     */
    RedLockRedis(RedLockProtocol lock, long self, int tokenBlock, String client, Duration commandTimeout, Duration mark) {
        this.lock = lock;
        this.self = self;
        this.tokenBlock = tokenBlock;
        this.client = client;
        this.commandTimeout = commandTimeout;
        this.mark = mark;
        this.cohortTries = lock.tries(new QuorumAcquire.PartTries() {
            @Override
            public CompletableFuture<TryResult> tryOn(Master master, long owner, LeaseTerm lease, boolean newHold) {
                return master.call(plain -> cohortPart(master, plain).tryCohortHold(lease));
            }

            @Override
            public int tokenBlock() {
                return tokenBlock;
            }
        });
        this.ownTries = lock.tries(new QuorumAcquire.PartTries() {
            @Override
            public CompletableFuture<TryResult> tryOn(Master master, long owner, LeaseTerm lease, boolean newHold) {
                return newHold ? master.call(plain -> ownPart(master, plain).tryAcquireNew(owner, lease))
                        : master.tryAcquire(owner, lease, false);
            }

            @Override
            public int tokenBlock() {
                return 1;
            }
        });
    }

    private CohortRedis cohortPart(Master master, PlainLock plain) {
        return cohortParts.computeIfAbsent(master, any -> LocalHandOffs.part(plain, self, tokenBlock, lock.kind()));
    }

    private CountedHolds ownPart(Master master, PlainLock plain) {
        return ownParts.computeIfAbsent(master, any -> plain.cohortCalls(1, TURN, mark));
    }

    /** @return the part of every master that is connected */
    private List<CohortRedis> connectedParts() {
        List<CohortRedis> parts = new ArrayList<>(lock.masters().size());
        for (Master master : lock.masters()) {
            PlainLock plain = master.protocol();
            if (plain != null) {
                parts.add(cohortPart(master, plain));
            }
        }
        return parts;
    }

    @Override
    public String lockName() {
        return lock.name();
    }

    @Override
    public String kind() {
        return lock.kind();
    }

    @Override
    public String client() {
        return client;
    }

    @Override
    public Ticker ticker() {
        return lock.ticker();
    }

    @Override
    public Timer timer() {
        return lock.timer();
    }

    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease) {
        return cohortTries.tryAcquire(self, lease, 0).thenApply(reply -> {
            if (reply.acquired()) {
                TryResult.Grant grant = Objects.requireNonNull(reply.grant(), "an acquired result has its grant");
                held = new CohortQuorum<>(grant.fencingToken(), QuorumAcquire.QuorumGrant.partsOf(reply),
                        lock.majority(), grant.confirmedUntilNanos(), lock.timer(), lock.ticker());
            }
            return reply;
        });
    }

    @Override
    public CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken) {
        return lease.renewed() ? lock.tryAcquire(owner, lease, heldToken) : ownTries.tryAcquire(owner, lease, heldToken);
    }

    @Override
    public CompletableFuture<Void> releaseOwnHold(long owner) {
        return lock.release(owner);
    }

    @Override
    public CompletableFuture<Void> releaseCohortHold(boolean requeue) {
        CohortQuorum<Master> quorum = held;
        held = null;
        if (quorum != null) {
            quorum.end();
        }
        // Decided as the RedLock's own unlock: released once a majority released, not held (an
        // IllegalMonitorStateException, e.g. after a force-unlock) once too many had nothing.
        ReleaseVotes votes = new ReleaseVotes(lock.name(), self, lock.masters().size(), lock.majority());
        for (Master master : lock.masters()) {
            master.call(plain -> cohortPart(master, plain).releaseCohortHold(requeue))
                    .whenComplete((ok, failure) -> votes.count(failure == null ? null : KindFailures.unwrap(failure)));
        }
        return votes.result;
    }

    @Override
    public void endCohortHold(long token) {
        CohortQuorum<Master> quorum = held;
        if (quorum == null || quorum.token() != token) {
            return;
        }
        held = null;
        quorum.end();
        quorum.parts().forEach((master, part) -> {
            PlainLock plain = master.protocol();
            if (plain != null) {
                cohortPart(master, plain).endCohortHold(part);
            }
        });
    }

    @Override
    public CompletableFuture<?> unmark() {
        return everyPart(CohortRedis::unmark);
    }

    /** @return completes once every connected master answered or failed; a failure on one leaves its mark to run out */
    private CompletableFuture<Void> everyPart(Function<CohortRedis, CompletableFuture<?>> call) {
        CompletableFuture<?>[] calls = connectedParts().stream()
                .map(part -> call.apply(part).handle((ok, failure) -> null))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(calls);
    }

    /**
     * Another client's mark on any master counts: that client waits, and the bound on hand-offs
     * applies. Fails only when no master answered.
     */
    @Override
    public CompletableFuture<String> readMark() {
        List<CompletableFuture<String>> reads = new ArrayList<>();
        for (Master master : lock.masters()) {
            reads.add(master.withinAttemptTimeout(master.call(plain -> cohortPart(master, plain).readMark())));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).handle((ignored, anyFailure) -> {
            String marked = null;
            Throwable failure = null;
            boolean answered = false;
            for (CompletableFuture<String> read : reads) {
                if (read.isCompletedExceptionally()) {
                    failure = failure == null ? RedLockProtocol.failureOf(read) : failure;
                    continue;
                }
                answered = true;
                String value = read.join();
                if (value != null && (marked == null || marked.equals(client))) {
                    marked = value;
                }
            }
            if (!answered) {
                throw RedLockFailures.quorumNotReached(lock.name(), 0, reads.size(), lock.majority(), failure);
            }
            return marked;
        });
    }

    /**
     * @return true if a majority of masters still have their part of the hold {@code token};
     *     false if too few can have it; fails if the masters that did not answer decide it
     */
    @Override
    public CompletableFuture<Boolean> holdsCohortHold(long token) {
        CohortQuorum<Master> quorum = held;
        if (quorum == null || quorum.token() != token) {
            return CompletableFuture.completedFuture(false);
        }
        List<CompletableFuture<Boolean>> asked = new ArrayList<>();
        quorum.parts().forEach((master, part) -> asked.add(master.withinAttemptTimeout(
                master.call(plain -> cohortPart(master, plain).holdsCohortHold(part)))));
        int majority = lock.majority();
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).handle((ignored, anyFailure) -> {
            int holding = 0;
            int unanswered = 0;
            Throwable failure = null;
            for (CompletableFuture<Boolean> answer : asked) {
                if (answer.isCompletedExceptionally()) {
                    unanswered++;
                    failure = failure == null ? RedLockProtocol.failureOf(answer) : failure;
                } else if (answer.join()) {
                    holding++;
                }
            }
            if (holding >= majority) {
                return true;
            }
            if (holding + unanswered < majority) {
                return false;
            }
            throw RedLockFailures.quorumNotReached(lock.name(), asked.size() - unanswered, lock.masters().size(), majority, failure);
        });
    }

    @Override
    public void renew(HoldReports reports) {
        CohortQuorum<Master> quorum = held;
        if (quorum == null) {
            return;
        }
        quorum.watch(reports).forEach((master, partReports) -> {
            PlainLock plain = master.protocol();
            if (plain != null) {
                cohortPart(master, plain).renew(partReports);
            }
        });
    }

    @Override
    public void stopRenewing() {
        CohortQuorum<Master> quorum = held;
        if (quorum != null) {
            quorum.end();
        }
        connectedParts().forEach(CohortRedis::stopRenewing);
    }

    /**
     * Every connected master's channel. A force notice names the token of a master's part: it
     * reaches the cohort with the quorum's token when it names the current hold's part there, so
     * that the cohort doubts the quorum and asks a majority; any other is not about this hold.
     */
    @Override
    public Runnable observe(Notices notices) {
        List<Runnable> stops = new ArrayList<>();
        for (Master master : lock.masters()) {
            PlainLock plain = master.protocol();
            if (plain == null) {
                continue;
            }
            stops.add(cohortPart(master, plain).observe(new Notices() {
                @Override
                public void notice(String message) {
                    if (!message.startsWith(FORCED)) {
                        notices.notice(message);
                        return;
                    }
                    CohortQuorum<Master> quorum = held;
                    Long part = quorum == null ? null : quorum.parts().get(master);
                    if (quorum != null && part != null && message.equals(FORCED + part)) {
                        notices.notice(FORCED + quorum.token());
                    }
                }

                @Override
                public void connectionLost() {
                    notices.connectionLost();
                }
            }));
        }
        return () -> stops.forEach(Runnable::run);
    }

    @Override
    public void handedOff(long from, long to, long token) {
        connectedParts().stream().findFirst().ifPresent(part -> part.handedOff(from, to, token));
    }
}
