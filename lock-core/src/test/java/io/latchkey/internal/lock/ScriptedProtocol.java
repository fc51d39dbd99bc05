package io.latchkey.internal.lock;

import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * A {@link LockProtocol} without Redis: every try stays unanswered until the test answers it,
 * so a test decides what each try finds and when. Releases and abandons succeed at once and are
 * counted. Thread-safe.
 */
final class ScriptedProtocol implements LockProtocol {

    /** The lease of a watchdog hold, as a client's {@code LockContext.watchdogLease()} would give it. */
    static final Duration WATCHDOG_LEASE = Duration.ofSeconds(30);

    /** What a try answers while another owner holds the lock: its lease, a minute. */
    static final long HELD_FOR_A_MINUTE = 60_000;
    /** What {@link #answerSharedFailure} answers in the queue of answers. */
    private static final long SHARED_FAILURE = Long.MIN_VALUE;

    private final LongFunction<CompletableFuture<Wakeups>> wakeups;
    private final LongFunction<Wakeups> wakeupsIfWaitedFor;
    private final Ticker ticker;
    private final Map<Long, Deque<CompletableFuture<Long>>> unanswered = new HashMap<>();
    private final Map<Long, Integer> tries = new HashMap<>();
    private final Map<Long, Integer> releases = new HashMap<>();
    private final AtomicLong lastToken = new AtomicLong();
    private boolean releasesFindNothing;
    private final Map<Long, Integer> abandons = new HashMap<>();
    private boolean abandonsWait;
    private final Deque<CompletableFuture<Void>> unansweredAbandons = new ArrayDeque<>();
    private volatile long lastTryNanos;
    private volatile RuntimeException sharedFailure;
    /** Null unless a test sends tries through it. */
    private volatile UnsettledCalls unsettled;
    private final Deque<CompletableFuture<Object>> settlements = new ArrayDeque<>();
    /** Null unless a test turns retries after a short outage on. */
    private volatile Timer retryTimer;
    private volatile Duration commandTimeout = Duration.ZERO;
    /** On a timer of its own, so that the tests' timer counts only the attempts' waits. */
    private final HoldRegistry holds = new HoldRegistry(ManualTimer.manual(), Ticker.system());

    /**
     * @param wakeups what {@link #wakeups(long)} joins
     * @param wakeupsIfWaitedFor what {@link #wakeupsIfWaitedFor(long)} returns, may return null
     * @param ticker the clock that attempts on this lock measure their wait with
     */
    ScriptedProtocol(LongFunction<CompletableFuture<Wakeups>> wakeups, LongFunction<Wakeups> wakeupsIfWaitedFor,
                     Ticker ticker) {
        this.wakeups = wakeups;
        this.wakeupsIfWaitedFor = wakeupsIfWaitedFor;
        this.ticker = ticker;
    }

    /** @return how many tries the owner has made so far */
    synchronized int tries(long owner) {
        return tries.getOrDefault(owner, 0);
    }

    /**
     * Turns on the tries after a short outage, as every real kind has them.
     *
     * @param timer the timer that schedules them
     * @param timeout the command timeout
     * @return this
     */
    ScriptedProtocol retryingOn(Timer timer, Duration timeout) {
        this.retryTimer = timer;
        this.commandTimeout = timeout;
        return this;
    }

    /** @return how many times an attempt of the owner gave up and abandoned its tries */
    synchronized int abandons(long owner) {
        return abandons.getOrDefault(owner, 0);
    }

    /** @return when the last try was made, by the ticker */
    long lastTryNanos() {
        return lastTryNanos;
    }

    /** @return true if the owner has a try that the test has not answered */
    synchronized boolean inFlight(long owner) {
        Deque<CompletableFuture<Long>> pending = unanswered.get(owner);
        return pending != null && !pending.isEmpty();
    }

    /** @return how many holds the owner has released so far */
    synchronized int releases(long owner) {
        return releases.getOrDefault(owner, 0);
    }

    /** Answers the owner's oldest unanswered try: the lock is held by someone else for a minute. */
    void answerHeld(long owner) {
        answerHeldFor(owner, HELD_FOR_A_MINUTE);
    }

    /**
     * Answers the owner's oldest unanswered try: the lock is held by someone else.
     *
     * @param leaseMillis the holder's remaining lease, or -1 for a lock without expiry
     */
    void answerHeldFor(long owner, long leaseMillis) {
        next(owner).complete(leaseMillis);
    }

    /** Answers the owner's oldest unanswered try: the owner now holds the lock. */
    void answerGranted(long owner) {
        next(owner).complete(null);
    }

    /**
     * Answers the owner's oldest unanswered try as local hand-off answers one that waited for
     * another owner's call, which failed.
     */
    void answerSharedFailure(long owner, RuntimeException failure) {
        sharedFailure = failure;
        next(owner).complete(SHARED_FAILURE);
    }

    /** Fails the owner's oldest unanswered try, as a Redis error would. */
    void answerFailure(long owner, RuntimeException failure) {
        next(owner).completeExceptionally(failure);
    }

    private synchronized CompletableFuture<Long> next(long owner) {
        Deque<CompletableFuture<Long>> pending = unanswered.get(owner);
        if (pending == null || pending.isEmpty()) {
            throw new AssertionError("owner " + owner + " has no try in flight");
        }
        return pending.removeFirst();
    }

    @Override
    public String name() {
        return "scripted";
    }

    /**
     * Sends every try as the kinds do: once the owner's earlier calls are settled, and a try whose
     * answer was lost is settled by a call that the test answers ({@link #answerSettlement}).
     */
    ScriptedProtocol settlingOn(UnsettledCalls calls) {
        this.unsettled = calls;
        return this;
    }

    /** @return true if a settling call is unanswered */
    synchronized boolean settlementInFlight() {
        return !settlements.isEmpty();
    }

    /** Answers the oldest settling call: Redis ran it. */
    void answerSettlement() {
        nextSettlement().complete(1L);
    }

    /** Fails the oldest settling call. */
    void failSettlement(RuntimeException failure) {
        nextSettlement().completeExceptionally(failure);
    }

    private synchronized CompletableFuture<Object> nextSettlement() {
        if (settlements.isEmpty()) {
            throw new AssertionError("no settling call in flight");
        }
        return settlements.removeFirst();
    }

    private synchronized CompletableFuture<?> settle() {
        CompletableFuture<Object> settling = new CompletableFuture<>();
        settlements.addLast(settling);
        return settling;
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        UnsettledCalls calls = unsettled;
        if (calls == null) {
            return scriptedTry(owner, lease, heldToken);
        }
        UnsettledCalls.HoldId hold = new UnsettledCalls.HoldId("scripted", "scripted", Long.toString(owner));
        return calls.after(hold, () -> scriptedTry(owner, lease, heldToken).whenComplete((answer, failure) -> {
            if (failure != null && Failures.mayHaveRun(failure)) {
                calls.settleLater(hold, "acquire", this::settle);
            }
        }));
    }

    private CompletableFuture<TryResult> scriptedTry(long owner, LeaseTerm lease, long heldToken) {
        CompletableFuture<Long> answer = new CompletableFuture<>();
        String secret;
        synchronized (this) {
            unanswered.computeIfAbsent(owner, o -> new ArrayDeque<>()).addLast(answer);
            secret = "secret-" + owner + "-" + tries.merge(owner, 1, Integer::sum);
            secrets.put(owner, secret);
        }
        lastTryNanos = ticker.read();
        // The test answers null for a grant, else the wait bound; "not acquired" comes with the
        // try's secret, as the fair lock's does.
        return answer.thenApply(wait -> wait == null ? TryResult.acquired(grant(heldToken, lease))
                : wait == SHARED_FAILURE ? TryResult.sharedFailure(sharedFailure) : TryResult.queued(wait, secret));
    }

    private TryResult.Grant grant(long heldToken, LeaseTerm lease) {
        long token = heldToken != 0 ? heldToken : lastToken.incrementAndGet();
        long untilNanos = ticker.read() + TimeUnit.MILLISECONDS.toNanos(lease.millis());
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
        };
    }

    /** Every word a wake-up carried that an attempt offered for a try, with its last queued try's send time. */
    private final java.util.List<String> words = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Guarded by this: the secret of each owner's last try. */
    private final Map<Long, String> secrets = new HashMap<>();

    /** @return the words offered so far, each as {@code <word>@<queuedSentNanos>} */
    java.util.List<String> wordsOffered() {
        return words;
    }

    /**
     * @param owner the owner id
     * @return the secret of the owner's last try (which a "not acquired" answer carries)
     */
    synchronized String lastSecret(long owner) {
        return secrets.get(owner);
    }

    /**
     * A word {@code <token> <secret>} with the secret of the queued try grants the hold with that
     * token, confirmed a minute past the queued try; any other makes a try.
     */
    @Override
    public TryResult grantedByWord(long owner, LeaseTerm lease, String word, long queuedSentNanos, String queuedSecret) {
        words.add(word + '@' + queuedSentNanos);
        String[] parts = word.split(" ");
        if (parts.length != 2 || !parts[1].equals(queuedSecret)) {
            return null;
        }
        long token;
        try {
            token = Long.parseLong(parts[0]);
        } catch (NumberFormatException notAToken) {
            return null;
        }
        long untilNanos = queuedSentNanos + TimeUnit.MINUTES.toNanos(1);
        return TryResult.acquired(new TryResult.Grant() {
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
        });
    }

    @Override
    public HoldRegistry holdRegistry() {
        return holds;
    }

    @Override
    public Object identity() {
        return this;
    }

    /** From now on every release finds no hold in Redis, as after the lease ran out there. */
    synchronized void releasesFindNothing() {
        releasesFindNothing = true;
    }

    @Override
    public synchronized CompletableFuture<Void> release(long owner) {
        releases.merge(owner, 1, Integer::sum);
        return releasesFindNothing
                ? CompletableFuture.failedFuture(new IllegalMonitorStateException("not held by owner " + owner))
                : CompletableFuture.completedFuture(null);
    }

    /** From now on every abandon stays unanswered until the test answers it ({@link #answerAbandon}). */
    synchronized void abandonsWaitForTheTest() {
        abandonsWait = true;
    }

    /** Answers the oldest unanswered abandon: Redis ran it. */
    void answerAbandon() {
        CompletableFuture<Void> abandon;
        synchronized (this) {
            abandon = unansweredAbandons.removeFirst();
        }
        abandon.complete(null);
    }

    /** Guarded by this: the secret each abandon was told of, in order ("" for none). */
    private final java.util.List<String> abandonSecrets = new java.util.ArrayList<>();

    /** @return the secret each abandon so far was told of, in order, "" where it was told of none */
    synchronized java.util.List<String> abandonSecrets() {
        return java.util.List.copyOf(abandonSecrets);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner, String queuedSecret) {
        synchronized (this) {
            abandonSecrets.add(queuedSecret == null ? "" : queuedSecret);
        }
        return abandon(owner);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        synchronized (this) {
            abandons.merge(owner, 1, Integer::sum);
            if (abandonsWait) {
                CompletableFuture<Void> abandon = new CompletableFuture<>();
                unansweredAbandons.addLast(abandon);
                return abandon;
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        return wakeups.apply(owner);
    }

    @Override
    public Wakeups wakeupsIfWaitedFor(long owner) {
        return wakeupsIfWaitedFor.apply(owner);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Ticker ticker() {
        return ticker;
    }

    @Override
    public Timer timer() {
        return retryTimer;
    }

    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }
}
