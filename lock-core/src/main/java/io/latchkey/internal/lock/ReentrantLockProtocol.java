package io.latchkey.internal.lock;

import io.latchkey.DistributedLock;
import io.latchkey.ReplicaAcknowledgement;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.PlainLock;
import io.latchkey.spi.Script;
import io.latchkey.spi.ScriptRunner.Replicated;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The reentrant, non-fair lock: a hash of owner to hold count, one script call to acquire and one
 * to release, the release publishing the unlock message itself. Thread-safe.
 */
public final class ReentrantLockProtocol implements PlainLock {

    private static final Script ACQUIRE = Script.load(ReentrantLockProtocol.class, "acquire.lua");
    private static final Script RELEASE = Script.load(ReentrantLockProtocol.class, "release.lua");
    private static final Script FORCE_RELEASE = Script.load(ReentrantLockProtocol.class, "force-release.lua");
    private static final Script UNMARK = Script.load(ReentrantLockProtocol.class, "unmark.lua");
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final String name;
    private final LockKeys keys;
    private final LockContext context;
    private final HoldCalls holds;
    /** Asked on every try, release and wait of the lock: made once, equal to a new one. */
    private final Object identity;

    /**
     * @param name the lock's name
     * @param context the client's shared machinery
     */
    public ReentrantLockProtocol(String name, LockContext context) {
        this.name = name;
        this.keys = context.keys(name);
        this.context = context;
        this.identity = context.lockId(keys.lock());
        this.holds = new HoldCalls(name, keys.lock(), context, scripts(new String[] {keys.lock(), keys.fenceCounter()},
                new String[0], new String[] {keys.lock(), keys.channel()}, new String[0]));
    }

    /**
     * The calls of a client's cohort hold (the local hand-off): holds of the plain lock whose
     * acquisition reserves a block of fencing tokens and marks the hold as a cohort's, whose tries
     * mark the client as waiting and keep out of another client's turn, and whose last release
     * reserves the lock for the waiting client, as acquire.lua and release.lua describe.
     *
     * @param tokenBlock how many tokens a new hold reserves: the hold's own and one per local
     *     hand-off; 1 for an owner's own hold of a client with local hand-off (a fixed lease),
     *     whose tries mark the client as waiting too
     * @param turn how long a turn reserved for another client lasts
     * @param mark how long a waiting mark that {@link HoldCalls#requeue(long)} writes lasts
     * @return the calls, on this lock's keys
     */
    @Override
    public HoldCalls cohortCalls(int tokenBlock, Duration turn, Duration mark) {
        String[] acquireKeys = {keys.lock(), keys.fenceCounter(), keys.waitingMark(), keys.turn(),
                keys.channel()};
        String[] releaseKeys = {keys.lock(), keys.channel(), keys.waitingMark(), keys.turn()};
        return new HoldCalls(name, keys.lock(), context, scripts(acquireKeys,
                new String[] {Integer.toString(tokenBlock), context.publishCommand()},
                releaseKeys, new String[] {Long.toString(turn.toMillis()), Long.toString(mark.toMillis())}));
    }

    /**
     * Withdraws a cohort's claim: its client's waiting mark and turn, if they still name it.
     *
     * @param client the client's id, as the cohort's tries wrote it
     * @return completes when done
     */
    public CompletableFuture<Long> unmark(String client) {
        return context.executor().eval(name, UNMARK, ScriptOutputType.INTEGER,
                new String[] {keys.waitingMark(), keys.turn()}, client);
    }

    /**
     * @param acquireKeys the keys of acquire.lua
     * @param extra ARGV after the four that acquire.lua always takes
     * @param releaseKeys the keys of release.lua
     * @param releaseExtra release.lua's ARGV after the five it always takes
     */
    private HoldScripts scripts(String[] acquireKeys, String[] extra, String[] releaseKeys, String[] releaseExtra) {
        return new HoldScripts() {
            @Override
            public CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held) {
                return context.executor().eval(name, ACQUIRE, ScriptOutputType.MULTI,
                        acquireKeys, acquireArgs(lease, field, call, held, extra));
            }

            @Override
            public CompletableFuture<Replicated<List<Object>>> acquireReplicated(String field, LeaseTerm lease, String call,
                    String held, ReplicaAcknowledgement acknowledgement) {
                return context.executor().evalReplicated(name, ACQUIRE, ScriptOutputType.MULTI, acknowledgement.replicas(),
                        acknowledgement.timeout(), acquireKeys, acquireArgs(lease, field, call, held, extra));
            }

            @Override
            public CompletableFuture<Long> release(String field, String call, String mode) {
                return releaseCall(field, call, mode, "");
            }

            @Override
            public CompletableFuture<Long> end(String field, String call, long token) {
                return releaseCall(field, call, "end", Long.toString(token));
            }

            private CompletableFuture<Long> releaseCall(String field, String call, String mode, String token) {
                String[] args = Stream.concat(Stream.of(field, context.publishCommand(), call, mode, token),
                        Stream.of(releaseExtra)).toArray(String[]::new);
                return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER, releaseKeys, args);
            }
        };
    }

    private static String[] acquireArgs(LeaseTerm lease, String field, String call, String held, String[] extra) {
        String[] args = new String[4 + extra.length];
        args[0] = Long.toString(lease.millis());
        args[1] = field;
        args[2] = call;
        args[3] = held;
        System.arraycopy(extra, 0, args, 4, extra.length);
        return args;
    }

    /**
     * The one place that looks behind a {@link DistributedLock}, for combinators that compose the
     * plain locks an application already has ({@code RedLock.of}).
     *
     * @param lock any lock
     * @return its plain lock, if it is a lock of {@code LockClient.getLock}
     */
    public static Optional<PlainLock> behind(DistributedLock lock) {
        return lock instanceof LockFacade facade ? facade.protocol().plainLock() : Optional.empty();
    }

    @Override
    public Optional<PlainLock> plainLock() {
        return Optional.of(this);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String kind() {
        return "plain";
    }

    @Override
    public LockKeys keys() {
        return keys;
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        return holds.tryAcquire(owner, lease, heldToken);
    }

    /**
     * One try that starts a new hold (see {@link HoldCalls#tryAcquireNew}), for a RedLock's
     * masters: the RedLock records its holds itself.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @return the try's result
     */
    @Override
    public CompletableFuture<TryResult> tryAcquireNew(long owner, LeaseTerm lease) {
        return holds.tryAcquireNew(owner, lease);
    }

    /**
     * Ends a hold of the owner that a composite (a RedLock) gave up for lost, if this Redis still
     * has it (see {@link HoldCalls#endLost}).
     *
     * @param owner the owner id
     * @param token the token this Redis gave the hold
     */
    @Override
    public void endLost(long owner, long token) {
        holds.endLost(owner, token);
    }

    @Override
    public HoldRegistry holdRegistry() {
        return context.holds();
    }

    @Override
    public Object identity() {
        return identity;
    }

    @Override
    public CompletableFuture<Void> release(long owner) {
        return holds.release(owner);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return DONE;
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        return context.subscriptions().join(keys.channel(), null);
    }

    @Override
    public @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        return context.subscriptions().joinIfSubscribed(keys.channel(), null);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return context.executor().<Long>eval(name, FORCE_RELEASE, ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.channel()}, context.publishCommand()).thenApply(deleted -> deleted == 1L);
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return context.executor().call(name, redis -> redis.exists(keys.lock())).thenApply(count -> count > 0);
    }

    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        return context.executor().call(name, redis -> redis.hget(keys.lock(), context.field(owner)))
                .thenApply(count -> count == null ? 0 : Integer.parseInt(count));
    }

    /**
     * @param owner the owner id
     * @param token a token of the owner's hold
     * @return true if Redis has the owner's hold with that token
     */
    public CompletableFuture<Boolean> holdsToken(long owner, long token) {
        return context.executor().call(name, redis -> redis.hget(keys.lock(), context.field(owner) + ":token"))
                .thenApply(held -> Long.toString(token).equals(held));
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        return context.executor().call(name, redis -> redis.pttl(keys.lock()))
                .thenApply(millis -> millis > 0 ? Duration.ofMillis(millis) : Duration.ZERO);
    }

    @Override
    public Ticker ticker() {
        return context.ticker();
    }

    @Override
    public Timer timer() {
        return context.timer();
    }

    @Override
    public Duration commandTimeout() {
        return context.config().commandTimeout();
    }
}
