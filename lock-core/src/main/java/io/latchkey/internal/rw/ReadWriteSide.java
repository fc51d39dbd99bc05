package io.latchkey.internal.rw;

import io.latchkey.internal.lock.HoldCalls;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.watchdog.Renewal;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Script;
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
 * What the read and the write side of one read-write lock share: holds counted in the lock hash
 * ({@link HoldCalls}), each with a lease of its own in the leases set, released, settled and
 * renewed by the same scripts; and the queries, which answer for one side. Thread-safe; never
 * blocks.
 */
abstract class ReadWriteSide implements LockProtocol {

    /** Renews read and write holds alike, so the watchdog batches them together. */
    static final Renewal RENEWAL = new Renewal(Script.load(ReadWriteSide.class, "renew.lua"), 2);
    private static final Script ACQUIRE = Script.load(ReadWriteSide.class, "acquire.lua");
    private static final Script RELEASE = Script.load(ReadWriteSide.class, "release.lua");
    private static final Script INSPECT = Script.load(ReadWriteSide.class, "inspect.lua");
    private static final Script RESERVE = Script.load(ReadWriteSide.class, "reserve.lua");
    /** The acquire script's answer to an owner that asks for the write lock and holds only the read lock. */
    private static final long UPGRADE = -2L;

    private final String name;
    private final String side;
    private final String otherSide;
    /** Where this side's waiters are woken. */
    private final String channel;
    /** Readers can all go at once, so the releases wake them with one message to all. */
    private final @Nullable String address;
    /** How long a waiting writer's place lasts without a try: a dead writer holds readers back no longer. */
    private final String placeMillis;
    /** The keys of the lock, as the scripts take them. */
    final ReadWriteKeys keys;
    /** The client's shared machinery. */
    final LockContext context;
    /** The side's holds. */
    final HoldCalls holds;
    private final Object identity;

    /**
     * @param name the lock's name
     * @param side {@code read} or {@code write}: the scripts' name for the side, and the suffix
     *     of its hold fields
     * @param otherSide the other one
     * @param channel where this side's waiters are woken
     * @param keys the lock's keys
     * @param context the client's shared machinery
     */
    ReadWriteSide(String name, String side, String otherSide, String channel, ReadWriteKeys keys, LockContext context) {
        this.name = name;
        this.side = side;
        this.otherSide = otherSide;
        this.channel = channel;
        this.address = channel.equals(keys.readChannel()) ? UnlockSubscriptions.EVERY_WAITER : null;
        this.placeMillis = Long.toString(Math.max(1, context.watchdogLease().toMillis()));
        this.keys = keys;
        this.context = context;
        this.identity = new SideId(context.lockId(keys.lock()), side);
        this.holds = holdCalls(1);
    }

    /**
     * @param tokenBlock how many tokens a new hold reserves
     * @return the calls on this side's holds, each new hold reserving {@code tokenBlock} tokens
     */
    final HoldCalls holdCalls(int tokenBlock) {
        HoldCalls.Layout layout = new HoldCalls.Layout(':' + side, RENEWAL, List.of(keys.lock(), keys.leases()));
        return new HoldCalls(name, context, layout, new HoldScripts() {
            @Override
            public CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held) {
                return ReadWriteSide.this.acquire(field, lease, call, held, tokenBlock);
            }

            @Override
            public CompletableFuture<Long> release(String field, String call, String mode) {
                return ReadWriteSide.this.release(field, call, mode, "");
            }

            @Override
            public CompletableFuture<Long> end(String field, String call, long token) {
                return ReadWriteSide.this.release(field, call, "end", Long.toString(token));
            }

            @Override
            public CompletableFuture<?> afterUndo(String field) {
                return ReadWriteSide.this.afterUndo(field);
            }
        });
    }

    /**
     * One try at this side, as {@link HoldScripts#acquire} makes it.
     *
     * @param field the owner's field on this side
     * @param lease the lease
     * @param call the call's id
     * @param held '', 'fresh', or the token of the hold to re-enter
     * @param tokenBlock how many tokens a new hold reserves
     * @return the script's answer, as {@link HoldScripts#acquire} wants it; fails with
     *     {@link IllegalMonitorStateException} if the owner asked for the write lock while it holds
     *     only the read lock
     */
    private CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held, int tokenBlock) {
        String sibling = field.substring(0, field.length() - side.length()) + otherSide;
        return context.executor().<List<Object>>eval(name, ACQUIRE, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.leases(), keys.writers(), keys.fenceCounter()},
                side, Long.toString(lease.millis()), field, sibling, call, held, placeMillis, Integer.toString(tokenBlock))
                .thenApply(answer -> {
                    if ((Long) answer.get(0) == UPGRADE) {
                        throw LockExceptions.upgradeRefused(name);
                    }
                    return answer;
                });
    }

    /**
     * Asks whether a shared read hold is still there and whether a writer waits, and if it is and
     * none does, reserves the next block of tokens for it (reserve.lua).
     *
     * @param field the shared hold's field
     * @param token the shared hold's token
     * @param tokenBlock how many tokens to reserve
     * @return {held, a writer waits, the block's first token}, each as reserve.lua answers it
     */
    final CompletableFuture<List<Long>> reserve(String field, long token, int tokenBlock) {
        return context.executor().<List<Object>>eval(name, RESERVE, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.leases(), keys.writers(), keys.fenceCounter()},
                field, Long.toString(token), Integer.toString(tokenBlock))
                .thenApply(answer -> answer.stream().map(Long.class::cast).toList());
    }

    /**
     * @param field the owner's field on this side
     * @return drops what an acquire whose answer was lost may have left besides a hold
     */
    CompletableFuture<?> afterUndo(String field) {
        return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<Long> release(String field, String call, String mode, String token) {
        return context.executor().eval(name, RELEASE, ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.leases(), keys.writers(), keys.channel(), keys.readChannel()},
                field, context.publishCommand(), call, mode, token);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        return holds.tryAcquire(owner, lease, heldToken);
    }

    @Override
    public final CompletableFuture<Void> release(long owner) {
        return holds.release(owner);
    }

    @Override
    public final HoldRegistry holdRegistry() {
        return context.holds();
    }

    @Override
    public final Object identity() {
        return identity;
    }

    /** @return {@code read} or {@code write}, as events and meters name the side */
    @Override
    public final String kind() {
        return side;
    }

    @Override
    public final CompletableFuture<Wakeups> wakeups(long owner) {
        return context.subscriptions().join(channel, address);
    }

    @Override
    public final @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        return context.subscriptions().joinIfSubscribed(channel, address);
    }

    /** Ends the side's holds, whoever has them: the write hold, or every read hold. */
    @Override
    public final CompletableFuture<Boolean> forceRelease() {
        return release(side, "", "force", "").thenApply(ended -> ended == 1L);
    }

    @Override
    public final CompletableFuture<Boolean> isLocked() {
        return inspect("").thenApply(answer -> answer.get(0) == 1L);
    }

    @Override
    public final CompletableFuture<Integer> holdCount(long owner) {
        return inspect(holds.field(owner)).thenApply(answer -> answer.get(2).intValue());
    }

    @Override
    public final CompletableFuture<Duration> remainingLease() {
        return inspect("").thenApply(answer -> answer.get(1) > 0 ? Duration.ofMillis(answer.get(1)) : Duration.ZERO);
    }

    /** @return {locked, remaining lease in ms, the field's hold count}, for this side */
    private CompletableFuture<List<Long>> inspect(String field) {
        return context.executor().<List<Object>>eval(name, INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.leases()}, side, field)
                .thenApply(answer -> answer.stream().map(Long.class::cast).toList());
    }

    @Override
    public final Ticker ticker() {
        return context.ticker();
    }

    @Override
    public final Timer timer() {
        return context.timer();
    }

    @Override
    public final Duration commandTimeout() {
        return context.config().commandTimeout();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + '{' + name + '}';
    }

    /**
     * What identifies one side of the lock on this client, for its holds.
     *
     * @param lock the lock hash on its Redis
     * @param side {@code read} or {@code write}
     */
    private record SideId(Object lock, String side) {
    }
}
