package io.latchkey.internal.fair;

import io.latchkey.ReplicaAcknowledgement;
import io.latchkey.spi.CountedHolds;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.Keys;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.LockServer;
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
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The fair lock: the plain lock's hash of owner to hold count, granted in arrival order through
 * a queue list and a sorted set of eviction deadlines.
 *
 * <p>A try that does not get the lock puts its owner at the back of the queue, or keeps its
 * place there and pushes its deadline back to Redis's {@code TIME} plus
 * {@code fairLockWaitTimeout}. The lock goes to the first in line only; a waiter whose deadline
 * passed while it was first in line is evicted by the next try of anyone, so a dead process
 * cannot block the queue. Each answer bounds the wait so that a live waiter always tries again
 * well before its deadline, the first in line also before the holder's lease runs out, everyone
 * behind it also by the first one's deadline (so that dead waiters in a row are evicted as their
 * places run out, whoever the first live waiter behind them is). Unlock
 * wakes the first in line by name, nobody else; so does any change of who is first (a grant, an
 * eviction, a waiter giving up), so that the new first watches the holder's lease. A waiter that
 * gives up leaves the queue at once ({@link #abandon}). Re-entry, leases and the watchdog are
 * exactly the plain lock's, on the same hash. Every script is O(log n) in the queue's length
 * except {@code abandon}'s LREM, paid only by a waiter that gives up. Thread-safe.
 */
public final class FairLockProtocol implements LockProtocol {

    private static final Script ACQUIRE = Script.load(FairLockProtocol.class, "acquire.lua");
    private static final Script RELEASE = Script.load(FairLockProtocol.class, "release.lua");
    private static final Script FORCE_RELEASE = Script.load(FairLockProtocol.class, "force-release.lua");
    private static final Script ABANDON = Script.load(FairLockProtocol.class, "abandon.lua");

    /** Far beyond any sensible setting, and small enough that Redis time plus it stays an exact Lua number. */
    private static final Duration LONGEST_PLACE = Duration.ofDays(100 * 365);

    private final String name;
    private final LockServer context;
    private final PlainLock plain;
    private final String lock;
    /** A list of waiter fields in arrival order, the first in line at the head. */
    private final String queue;
    /** A sorted set of waiter field to eviction deadline, in milliseconds of Redis time. */
    private final String timeouts;
    private final String channel;
    private final String fenceCounter;
    private final String placeMillis;
    private final CountedHolds holds;

    /**
     * @param name the lock's name
     * @param context the client's shared machinery
     */
    public FairLockProtocol(String name, LockServer context) {
        this.name = name;
        this.context = context;
        this.plain = context.plainLock(name);
        Keys keys = context.keys(name);
        this.lock = keys.lock();
        this.queue = keys.derived("queue");
        this.timeouts = keys.derived("timeouts");
        this.channel = keys.channel();
        this.fenceCounter = keys.fenceCounter();
        Duration place = context.config().fairLockWaitTimeout();
        this.placeMillis = Long.toString(Math.max(1, (place.compareTo(LONGEST_PLACE) > 0 ? LONGEST_PLACE : place).toMillis()));
        this.holds = context.countedHolds(name, lock, new HoldScripts() {
            @Override
            public CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held) {
                return context.executor().eval(name, ACQUIRE, ScriptOutputType.MULTI,
                        new String[] {lock, queue, timeouts, channel, fenceCounter},
                        Long.toString(lease.millis()), field, placeMillis, context.publishCommand(), call, held);
            }

            @Override
            public CompletableFuture<Replicated<List<Object>>> acquireReplicated(String field, LeaseTerm lease, String call,
                    String held, ReplicaAcknowledgement acknowledgement) {
                return context.executor().evalReplicated(name, ACQUIRE, ScriptOutputType.MULTI, acknowledgement.replicas(),
                        acknowledgement.timeout(), new String[] {lock, queue, timeouts, channel, fenceCounter},
                        Long.toString(lease.millis()), field, placeMillis, context.publishCommand(), call, held);
            }

            @Override
            public CompletableFuture<Long> release(String field, String call, String mode) {
                return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER,
                        new String[] {lock, queue, channel}, field, context.publishCommand(), call, mode);
            }

            @Override
            public CompletableFuture<Long> end(String field, String call, long token) {
                return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER,
                        new String[] {lock, queue, channel}, field, context.publishCommand(), call, "end", Long.toString(token));
            }

            // No afterUndo: an acquire whose answer was lost is settled while its attempt may still
            // try again within its wait (a short outage), and a place in line it took is then
            // still the waiter's. The attempt leaves the queue itself when it ends (abandon),
            // and a grant takes it out of the queue.
        });
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String kind() {
        return "fair";
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        return holds.tryAcquire(owner, lease, heldToken);
    }

    @Override
    public HoldRegistry holdRegistry() {
        return context.holds();
    }

    @Override
    public Object identity() {
        return context.lockId(lock);
    }

    @Override
    public CompletableFuture<Void> release(long owner) {
        return holds.release(owner);
    }

    /** Leaves the queue; if the answer is lost, the place is left again as soon as Redis answers. */
    @Override
    public CompletableFuture<Void> abandon(long owner) {
        String field = context.field(owner);
        return context.sendOrSettleLater(lock, owner, "leaving the queue",
                () -> leaveQueue(field), () -> leaveQueue(field)).thenApply(removed -> null);
    }

    private CompletableFuture<Long> leaveQueue(String field) {
        return context.executor().eval(name, ABANDON, ScriptOutputType.INTEGER,
                new String[] {queue, timeouts, channel}, field, context.publishCommand());
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        return context.wakeups(channel, context.field(owner));
    }

    @Override
    public @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        return context.wakeupsIfSubscribed(channel, context.field(owner));
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return context.executor().<Long>eval(name, FORCE_RELEASE, ScriptOutputType.INTEGER,
                new String[] {lock, queue, channel}, context.publishCommand()).thenApply(deleted -> deleted == 1L);
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return plain.isLocked();
    }

    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        return plain.holdCount(owner);
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        return plain.remainingLease();
    }

    @Override
    public Ticker ticker() {
        return plain.ticker();
    }

    @Override
    public Timer timer() {
        return plain.timer();
    }

    @Override
    public Duration commandTimeout() {
        return plain.commandTimeout();
    }

    @Override
    public String toString() {
        return "FairLockProtocol{" + name + '}';
    }
}
