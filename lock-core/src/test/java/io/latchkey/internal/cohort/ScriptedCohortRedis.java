package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link CohortRedis} without Redis, for tests of one {@link Cohort}: every call that Redis
 * would answer stays unanswered until the test answers it, so a test decides what each call
 * finds and when; the calls that Redis does not answer (the watchdog, the channel, the events)
 * are recorded. Not thread-safe: one test thread drives it.
 */
final class ScriptedCohortRedis implements CohortRedis {

    static final String CLIENT = "client-1";
    static final String OTHER_CLIENT = "client-2";
    /** The margin of rule 1: a hold is passed on only while more than this of its lease is left. */
    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(100);
    static final LeaseTerm WATCHDOG = LeaseTerm.watchdog(Duration.ofSeconds(30));
    static final LeaseTerm FIXED = LeaseTerm.fixed(Duration.ofSeconds(10));

    /** One try of an owner's own hold, as the cohort sent it. */
    record OwnTry(long owner, LeaseTerm lease, long heldToken, CompletableFuture<TryResult> answer) {
    }

    /** One check of the cohort's hold. */
    record HoldCheck(long token, CompletableFuture<Boolean> answer) {
    }

    /** One release of the cohort's hold. */
    record Release(boolean requeue, CompletableFuture<Void> done) {
    }

    /** One local hand-off, as the cohort told it. */
    record HandOff(long from, long to, long token) {
    }

    private final ManualTimer timer;
    final Deque<CompletableFuture<TryResult>> cohortTries = new ArrayDeque<>();
    final Deque<OwnTry> ownTries = new ArrayDeque<>();
    final List<Long> ownReleases = new ArrayList<>();
    final Deque<Release> releases = new ArrayDeque<>();
    final List<Long> endedHolds = new ArrayList<>();
    final Deque<CompletableFuture<Object>> unmarks = new ArrayDeque<>();
    final Deque<CompletableFuture<String>> markReads = new ArrayDeque<>();
    final Deque<HoldCheck> holdChecks = new ArrayDeque<>();
    /** What the cohort handed to the watchdog, one per Redis hold, latest last. */
    final List<HoldReports> renewing = new ArrayList<>();
    int renewalsStopped;
    /** The cohort's observer of the lock's channel while it observes, else null. */
    Notices notices;
    int observationsStopped;
    final List<HandOff> handOffs = new ArrayList<>();

    ScriptedCohortRedis(ManualTimer timer) {
        this.timer = timer;
    }

    // ---- answers, as the test gives them ------------------------------------------------------

    /** Redis granted the cohort's oldest unanswered try a new hold with {@code token}, for the lease of 30 s. */
    void grant(long token) {
        grant(token, false);
    }

    /** @param anotherClientWaits true if the waiting mark named another client when Redis granted it */
    void grant(long token, boolean anotherClientWaits) {
        cohortTries.remove().complete(TryResult.acquired(grantOf(token, leaseFromNow(), anotherClientWaits)));
    }

    /** Redis answered the cohort's oldest unanswered try: held by another client for {@code waitMillis}. */
    void busy(long waitMillis) {
        cohortTries.remove().complete(TryResult.busy(waitMillis));
    }

    /** Redis released the cohort's hold, as the oldest unanswered release asked. */
    Release released() {
        Release release = releases.remove();
        release.done().complete(null);
        return release;
    }

    /** @return the end of a lease of 30 s granted now, by the client's ticker */
    long leaseFromNow() {
        return timer.ticker().read() + TimeUnit.MILLISECONDS.toNanos(WATCHDOG.millis());
    }

    static TryResult.Grant grantOf(long token, long untilNanos, boolean anotherClientWaits) {
        return new TryResult.Grant() {
            @Override
            public long fencingToken() {
                return token;
            }

            @Override
            public long confirmedUntilNanos() {
                return untilNanos;
            }

            @Override
            public void start(Hold hold) {
            }

            @Override
            public boolean anotherClientWaits() {
                return anotherClientWaits;
            }
        };
    }

    /** @return what the watchdog was last told to renew */
    HoldReports reports() {
        return renewing.get(renewing.size() - 1);
    }

    // ---- CohortRedis --------------------------------------------------------------------------

    @Override
    public String lockName() {
        return "orders";
    }

    @Override
    public String kind() {
        return "plain";
    }

    @Override
    public String client() {
        return CLIENT;
    }

    @Override
    public Ticker ticker() {
        return timer.ticker();
    }

    @Override
    public Timer timer() {
        return timer;
    }

    @Override
    public Duration commandTimeout() {
        return COMMAND_TIMEOUT;
    }

    @Override
    public CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease) {
        CompletableFuture<TryResult> answer = new CompletableFuture<>();
        cohortTries.add(answer);
        return answer;
    }

    @Override
    public CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken) {
        CompletableFuture<TryResult> answer = new CompletableFuture<>();
        ownTries.add(new OwnTry(owner, lease, heldToken, answer));
        return answer;
    }

    @Override
    public CompletableFuture<Void> releaseOwnHold(long owner) {
        ownReleases.add(owner);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> releaseCohortHold(boolean requeue) {
        Release release = new Release(requeue, new CompletableFuture<>());
        releases.add(release);
        return release.done();
    }

    @Override
    public void endCohortHold(long token) {
        endedHolds.add(token);
    }

    @Override
    public CompletableFuture<?> unmark() {
        CompletableFuture<Object> done = new CompletableFuture<>();
        unmarks.add(done);
        return done;
    }

    @Override
    public CompletableFuture<String> readMark() {
        CompletableFuture<String> mark = new CompletableFuture<>();
        markReads.add(mark);
        return mark;
    }

    @Override
    public CompletableFuture<Boolean> holdsCohortHold(long token) {
        CompletableFuture<Boolean> held = new CompletableFuture<>();
        holdChecks.add(new HoldCheck(token, held));
        return held;
    }

    @Override
    public void renew(HoldReports reports) {
        renewing.add(reports);
    }

    @Override
    public void stopRenewing() {
        renewalsStopped++;
    }

    @Override
    public Runnable observe(Notices observer) {
        notices = observer;
        return () -> {
            if (notices == observer) {
                notices = null;
                observationsStopped++;
            }
        };
    }

    @Override
    public void handedOff(long from, long to, long token) {
        handOffs.add(new HandOff(from, to, token));
    }
}
