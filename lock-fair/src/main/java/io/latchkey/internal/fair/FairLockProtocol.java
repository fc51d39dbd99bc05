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
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * places run out, whoever the first live waiter behind them is).
 *
 * <p>The last release grants the lock to the first live waiter in line, in the same script, and
 * its message tells that waiter the token, with the proof of a secret that the waiter's last try
 * left with its place ({@link GrantSecrets}): the waiter enters on a message that proves it,
 * without a try, and takes the hold in Redis with its own lease as the hold's first renewal
 * ({@link #grantedByWord}); on any other it tries, so a forged message costs one try.
 * A grant lasts until the waiter's place in line would have run out, so a dead waiter blocks the
 * lock no longer than it blocked the queue; a grant whose message was lost is taken by the
 * waiter's next try, and one whose waiter gave up meanwhile is given back by {@link #abandon}.
 * Any other change of who is first (a grant taken with a lease that ends before the new first's
 * place, an eviction, a waiter giving up) wakes the new first by name, nobody else, so that it
 * watches the holder's lease; a take whose lease outlasts that place leaves it to its own cadence,
 * which brings it back before the lease ends. The release of a hold entered on a message goes out
 * behind its take, before the take's answer, and ends the hold by its token; a grant that ends no
 * later than the owner's lease would is taken only when due, so a release before that stands for
 * the take too ({@link CountedHolds#takeGranted}). A waiter that
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
    /** What Redis TIME floored to milliseconds, and its comparisons' edge, may take off a deadline. */
    private static final long REDIS_TIME_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final String name;
    private final LockServer context;
    private final PlainLock plain;
    private final String lock;
    /** A list of waiter fields in arrival order, the first in line at the head. */
    private final String queue;
    /** A sorted set of waiter field to eviction deadline, in milliseconds of Redis time. */
    private final String timeouts;
    /** A hash of waiter field to the secret its last try left with its place ({@link GrantSecrets}). */
    private final String secrets;
    private final String channel;
    private final String fenceCounter;
    private final String placeMillis;
    private final long placeNanos;
    /**
     * How much of a grant's lower bound must be left to enter on its message: the take that
     * follows, answered or failed within a command timeout, then lands before the bound runs out
     * and the hold is not given up for a lease that merely went unconfirmed. At most a quarter of
     * the place, so that a short place still lets a waiter in on the message: a live first in
     * line tries at least every half place, so its bound has about half a place left at a grant.
     */
    private final long enterMarginNanos;
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
        this.secrets = keys.derived("secrets");
        this.channel = keys.channel();
        this.fenceCounter = keys.fenceCounter();
        Duration place = context.config().fairLockWaitTimeout();
        long placeMillisValue = Math.max(1, (place.compareTo(LONGEST_PLACE) > 0 ? LONGEST_PLACE : place).toMillis());
        this.placeMillis = Long.toString(placeMillisValue);
        this.placeNanos = TimeUnit.MILLISECONDS.toNanos(placeMillisValue);
        this.enterMarginNanos = Math.min(context.config().commandTimeout().toNanos(), placeNanos / 4);
        this.holds = context.countedHolds(name, lock, new HoldScripts() {
            @Override
            public CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held) {
                return context.executor().eval(name, ACQUIRE, ScriptOutputType.MULTI,
                        new String[] {lock, queue, timeouts, channel, fenceCounter, secrets},
                        Long.toString(lease.millis()), field, placeMillis, context.publishCommand(), call, held, secretFor(held));
            }

            @Override
            public CompletableFuture<Replicated<List<Object>>> acquireReplicated(String field, LeaseTerm lease, String call,
                    String held, ReplicaAcknowledgement acknowledgement) {
                return context.executor().evalReplicated(name, ACQUIRE, ScriptOutputType.MULTI, acknowledgement.replicas(),
                        acknowledgement.timeout(), new String[] {lock, queue, timeouts, channel, fenceCounter, secrets},
                        Long.toString(lease.millis()), field, placeMillis, context.publishCommand(), call, held, secretFor(held));
            }

            @Override
            public CompletableFuture<Long> release(String field, String call, String mode) {
                return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER,
                        new String[] {lock, queue, channel, timeouts, fenceCounter, secrets}, field, context.publishCommand(), call,
                        mode);
            }

            @Override
            public CompletableFuture<Long> end(String field, String call, long token) {
                return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER,
                        new String[] {lock, queue, channel, timeouts, fenceCounter, secrets}, field, context.publishCommand(), call,
                        "end", Long.toString(token));
            }

            // No afterUndo: an acquire whose answer was lost is settled while its attempt may still
            // try again within its wait (a short outage), and a place in line it took is then
            // still the waiter's. The attempt leaves the queue itself when it ends (abandon, which
            // also gives back a grant of the release it did not take), and a grant takes it out
            // of the queue; undoing a try that took a granted hold frees the lock for the next.
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

    /**
     * Enters a hold that the release granted, told by the message that woke the waiter, without
     * a round trip, if the message proves the secret of the waiter's last try and the grant's
     * lower bound leaves room (see release.lua). The message is {@code <token> <proof>}, the proof
     * the SHA-1 of {@code <token>:<secret>} ({@link GrantSecrets}): a message anyone else sent
     * proves nothing, and is taken as a wake-up. The bound: the waiter's deadline in line was set
     * by that try to Redis's time then plus {@code fairLockWaitTimeout} (a later try would have
     * left another secret), and the grant lasts until that deadline; so the send time of that try
     * plus {@code fairLockWaitTimeout} is a moment on this client's clock before which Redis keeps
     * the grant. The hold is then taken in Redis with the owner's lease as its first renewal
     * ({@link CountedHolds#takeGranted}: at once, or when due if the grant ends no later than the
     * watchdog lease would, unless the owner's release ends the hold by its token first). With less than {@link #enterMarginNanos} of the bound
     * left, or replica acknowledgement asked for (nothing waited for the replicas to have the
     * grant), the try is made instead, and takes the grant as any try of the waiter does.
     */
    @Override
    public @Nullable TryResult grantedByWord(long owner, LeaseTerm lease, String word, long queuedSentNanos,
                                             String queuedSecret) {
        OptionalLong token = GrantSecrets.provenToken(word, queuedSecret);
        if (token.isEmpty()) {
            return null;
        }
        long untilNanos = grantLastsUntil(queuedSentNanos, placeNanos);
        if (context.config().replicaAcknowledgement().isPresent() || untilNanos - context.ticker().read() < enterMarginNanos) {
            return null;
        }
        return holds.takeGranted(owner, lease, token.getAsLong(), queuedSecret, untilNanos);
    }

    /**
     * A time, by the client's ticker, before which Redis does not drop a grant made on a try sent
     * at {@code queuedSentNanos}: the try ran no earlier, and its place's deadline is Redis TIME
     * floored to the millisecond plus the place, so it may end up to a millisecond before the send
     * plus the place; one more spares the comparison's edge.
     *
     * @param queuedSentNanos when the try answered "queued" was sent, by the client's ticker
     * @param placeNanos how long a place in line lasts
     * @return the grant's lower bound
     */
    static long grantLastsUntil(long queuedSentNanos, long placeNanos) {
        return queuedSentNanos + placeNanos - REDIS_TIME_FLOOR_NANOS;
    }

    /**
     * The secret a try sends, which acquire.lua keeps if the try queues.
     *
     * @param held the acquire script's ARGV[6]
     * @return a new secret for a try that may queue (one that takes the lock or re-enters
     *     whatever hold the owner has); none for a re-entry of a given hold, which never queues
     */
    private static String secretFor(String held) {
        return held.isEmpty() ? GrantSecrets.next() : "";
    }

    /** As {@link #abandon(long, String)} for an attempt that knows no secret of its tries. */
    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return abandon(owner, null);
    }

    /**
     * Leaves the queue, and gives back a hold that the release granted the owner on this
     * attempt's try if it was not taken (its message came too late, or was lost): not one granted
     * on another attempt's try, which that attempt may have entered on (abandon.lua); if the
     * answer is lost, this is done again as soon as Redis answers.
     */
    @Override
    public CompletableFuture<Void> abandon(long owner, @Nullable String queuedSecret) {
        String field = context.field(owner);
        String secret = queuedSecret == null ? "" : queuedSecret;
        holds.leftTheQueue(owner);
        return context.sendOrSettleLater(lock, owner, "leaving the queue",
                () -> leaveQueue(field, secret), () -> leaveQueue(field, secret)).thenApply(removed -> null);
    }

    private CompletableFuture<Long> leaveQueue(String field, String secret) {
        return context.executor().eval(name, ABANDON, ScriptOutputType.INTEGER,
                new String[] {queue, timeouts, channel, lock, secrets}, field, context.publishCommand(), secret);
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

    /** Sent once the owner's take of a grant that waited to be sent is answered, so that it counts the hold. */
    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        return holds.sendPendingTake(owner).thenCompose(taken -> plain.holdCount(owner));
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
