package io.latchkey.internal.semaphore;

import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.internal.lock.UnsettledCalls;
import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.watchdog.Renewal;
import io.latchkey.spi.AcquireProtocol;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Script;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.lettuce.core.ScriptOutputType;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of one leased semaphore: a sorted set of permit id to lease end (Redis's clock)
 * and the limit in force beside it, both in the name's slot; one script call to take a permit,
 * one to return it (which publishes one wake-up), one batched renewal per watchdog round.
 *
 * <p>An "owner" here is one acquisition: {@link #newOwner()} gives every acquisition an id of its
 * own, so every permit is a hold of its own, and its permit id is the client id and that owner
 * ({@code <clientId>:<owner>}), known before the acquire call is sent. An acquire whose answer is
 * lost is therefore undone by that id (the release script, which then finds the permit or
 * nothing), through {@link UnsettledCalls}, right behind the lost call; until Redis answers, the
 * permit is bounded by its lease, which nothing renews. Thread-safe; never blocks.
 */
public final class SemaphoreProtocol implements AcquireProtocol {

    /** The semaphore's kind, as events and meters name it. */
    public static final String KIND = "semaphore";

    private static final Script ACQUIRE = Script.load(SemaphoreProtocol.class, "acquire.lua");
    private static final Script RELEASE = Script.load(SemaphoreProtocol.class, "release.lua");
    private static final Script AVAILABLE = Script.load(SemaphoreProtocol.class, "available.lua");
    /** How the watchdog renews permits: two keys per permit, the permits and the limit. */
    static final Renewal PERMITS = new Renewal(Script.load(SemaphoreProtocol.class, "renew.lua"), 2);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /**
     * One acquisition's owner id: unique within the JVM, so within every client, whose id prefixes
     * the permit id; never reused, so a settling call can never meet a later permit of its id.
     */
    private static final AtomicLong OWNERS = new AtomicLong();

    private final String name;
    private final int limit;
    private final String permits;
    private final String limitKey;
    private final String channel;
    private final LockContext context;
    private final Object identity;

    /**
     * @param name the semaphore's name
     * @param limit the limit this semaphore object was created with; at least 1
     * @param context the client's shared machinery
     */
    public SemaphoreProtocol(String name, int limit, LockContext context) {
        LockKeys keys = context.keys(name);
        this.name = name;
        this.limit = limit;
        this.permits = permitsKey(keys);
        this.limitKey = limitKey(keys);
        this.channel = channel(keys);
        this.context = context;
        this.identity = new PermitsId(context.executor(), permits);
    }

    /**
     * @param keys a name's keys
     * @return the sorted set of permit id to lease end: {@code latchkey:{N}:permits}
     */
    public static String permitsKey(LockKeys keys) {
        return keys.derived("permits");
    }

    /**
     * @param keys a name's keys
     * @return the limit in force: {@code latchkey:{N}:permit-limit}
     */
    public static String limitKey(LockKeys keys) {
        return keys.derived("permit-limit");
    }

    /**
     * @param keys a name's keys
     * @return the channel that announces returned permits: {@code latchkey:{N}:permit-channel};
     *     not the plain lock's, so that a lock and a semaphore of one name do not wake each other
     */
    public static String channel(LockKeys keys) {
        return keys.derived("permit-channel");
    }

    /** @return an owner id for one new acquisition, never used before in this JVM */
    static long newOwner() {
        return OWNERS.incrementAndGet();
    }

    @Override
    public String name() {
        return name;
    }

    /** @return the limit this semaphore object was created with */
    int limit() {
        return limit;
    }

    /**
     * @param owner an acquisition's owner id
     * @return the id of its permit
     */
    String permitId(long owner) {
        return context.field(owner);
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        String id = permitId(owner);
        HoldId hold = context.hold(permits, owner);
        UnsettledCalls unsettled = context.unsettled();
        long[] sentAtNanos = new long[1];
        return unsettled.after(hold, () -> {
            sentAtNanos[0] = context.ticker().read();
            return context.executor().<List<Object>>eval(name, ACQUIRE, ScriptOutputType.MULTI,
                    new String[] {permits, limitKey}, Long.toString(lease.millis()), id, Integer.toString(limit))
                    .whenComplete((reply, failure) -> {
                        if (failure != null && Failures.mayHaveRun(failure)) {
                            unsettled.settleLater(hold, "acquire of permit " + id, () -> releaseCall(id));
                        }
                    });
        }).thenApply(reply -> {
            long answer = (Long) reply.get(0);
            if (answer == 0L) {
                return TryResult.busy((Long) reply.get(1));
            }
            if (answer < 0L) {
                throw new IllegalStateException("semaphore '" + name + "' has permits out under a limit of "
                        + reply.get(1) + ", not " + limit + " as this semaphore object was created with");
            }
            long untilNanos = sentAtNanos[0] + TimeUnit.MILLISECONDS.toNanos(lease.millis());
            return TryResult.acquired(new PermitGrant(owner, id, untilNanos));
        });
    }

    @Override
    public CompletableFuture<Void> release(long owner) {
        String id = permitId(owner);
        HoldId hold = context.hold(permits, owner);
        UnsettledCalls unsettled = context.unsettled();
        // The permit's hold stopped its renewal as the release was asked for (Hold.releasing).
        return unsettled.afterOrSettleLater(hold, "release of permit " + id, () -> releaseCall(id), () -> releaseCall(id),
                failure -> LockExceptions.releaseDeferred(name, owner, failure)).thenApply(released -> {
                    if (released == null || released != 1L) {
                        // Gone, or there with its lease run out: either way not this caller's any more.
                        throw LockExceptions.notHeld(name, owner);
                    }
                    return null;
                });
    }

    /** @return 1 if returned, 0 if its lease had run out, null if it was not there */
    private CompletableFuture<Long> releaseCall(String id) {
        return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER,
                new String[] {permits, limitKey, channel}, id, context.publishCommand());
    }

    /**
     * Ends a permit that the client gave up for lost, if Redis still has it, so that its place is
     * free at once rather than when Redis's own count of its lease runs out.
     */
    private void endLost(long owner) {
        String id = permitId(owner);
        context.unsettled().settleLater(context.hold(permits, owner), "end of lost permit " + id, () -> releaseCall(id));
    }

    /**
     * From Redis, in one round trip.
     *
     * @return the limit in force minus the valid permits
     */
    public CompletableFuture<Integer> availablePermits() {
        return context.executor().<Long>eval(name, AVAILABLE, ScriptOutputType.INTEGER,
                new String[] {permits, limitKey}, Integer.toString(limit)).thenApply(Long::intValue);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return DONE; // a try that did not grant leaves nothing in Redis
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        return context.subscriptions().join(channel, null);
    }

    @Override
    public @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        return context.subscriptions().joinIfSubscribed(channel, null);
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
    public String kind() {
        return KIND;
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

    /** What identifies a semaphore on this client: never equal to a lock's identity. */
    private record PermitsId(Object redis, String permits) {
    }

    /** One granted permit: a hold of one level, renewed by {@link #PERMITS} if its lease is the watchdog's. */
    private final class PermitGrant implements TryResult.Grant {
        private final long owner;
        private final String id;
        private final long untilNanos;

        PermitGrant(long owner, String id, long untilNanos) {
            this.owner = owner;
            this.id = id;
            this.untilNanos = untilNanos;
        }

        @Override
        public long fencingToken() {
            return 0; // permits have no token; the hold is new for every permit
        }

        @Override
        public long confirmedUntilNanos() {
            return untilNanos;
        }

        @Override
        public void start(Hold hold) {
            hold.onLoss((lost, mayRemainInRedis) -> {
                if (mayRemainInRedis) {
                    endLost(owner);
                }
            });
            hold.renewWith(() -> context.renewer().renew(context.executor(), PERMITS, List.of(permits, limitKey), id, hold));
        }
    }
}
