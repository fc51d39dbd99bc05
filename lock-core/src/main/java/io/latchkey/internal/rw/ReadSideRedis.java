package io.latchkey.internal.rw;

import io.latchkey.internal.lock.HoldCalls;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of a {@link ReadShare} on a real Redis: the read side's scripts under the
 * share's owner id, whose hold is an ordinary read hold (its own lease, renewed by the watchdog
 * in the read-write batch, released and settled as any). Thread-safe.
 */
final class ReadSideRedis implements ShareRedis {

    private final ReadLockProtocol read;
    private final LockContext context;
    private final long self;
    private final String field;
    private final int tokenBlock;
    private final HoldCalls shared;

    /**
     * @param read the read side
     * @param self the share's owner id in Redis, one of the client's reserved ones
     * @param tokenBlock how many tokens each call reserves
     */
    ReadSideRedis(ReadLockProtocol read, long self, int tokenBlock) {
        this.read = read;
        this.context = read.context;
        this.self = self;
        this.field = read.holds.field(self);
        this.tokenBlock = tokenBlock;
        this.shared = read.holdCalls(tokenBlock);
    }

    @Override
    public String lockName() {
        return read.name();
    }

    @Override
    public Ticker ticker() {
        return context.ticker();
    }

    @Override
    public Duration commandTimeout() {
        return context.config().commandTimeout();
    }

    @Override
    public CompletableFuture<TryResult> tryShareHold(LeaseTerm lease) {
        return shared.tryAcquireReplacing(self, lease);
    }

    @Override
    public CompletableFuture<Void> releaseShareHold() {
        // Before Redis answers: a release whose answer is lost never leaves the hold renewed.
        context.renewer().cancel(context.executor(), read.keys.lock(), field);
        return shared.release(self);
    }

    @Override
    public void endShareHold(long token) {
        shared.endLost(self, token);
    }

    @Override
    public CompletableFuture<Reserved> reserve(long token) {
        return read.reserve(field, token, tokenBlock).thenApply(answer -> new Reserved(answer.get(0) == 1L,
                answer.get(1) == 1L, answer.get(2)));
    }

    @Override
    public CompletableFuture<Boolean> holdsShareHold() {
        return read.holdCount(self).thenApply(levels -> levels > 0);
    }

    @Override
    public void renew(RenewedLease lease) {
        context.renewer().renew(context.executor(), ReadWriteSide.RENEWAL, List.of(read.keys.lock(), read.keys.leases()),
                field, lease);
    }

    @Override
    public void stopRenewing(RenewedLease lease) {
        context.renewer().cancel(context.executor(), read.keys.lock(), field, lease);
    }

    @Override
    public Runnable observeConnection(Runnable lost) {
        return context.subscriptions().observe(read.keys.readChannel(), notice -> { }, lost);
    }
}
