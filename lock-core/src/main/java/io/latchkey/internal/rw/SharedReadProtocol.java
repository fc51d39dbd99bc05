package io.latchkey.internal.rw;

import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The read side with shared reads: a decorator of {@link ReadLockProtocol} that the one acquire
 * loop drives unchanged. A new reader with the watchdog lease goes through the client's
 * {@link ReadShare} of the lock, which admits it without a round trip while its budget allows;
 * re-entries of a hold taken that way stay local. Fixed leases, the write lock's owner's own
 * read (a downgrade: the share's hold would wait for that owner's write), and whatever the share
 * sends to Redis go to the read side under the owner's own field, as without the share. Queries
 * that Redis answers for every client go to Redis, where the shared hold shows the read lock
 * held; an owner's hold count is the share's once Redis confirmed the shared hold. Waiting is the
 * read side's: behind a writer, readers wait on the readers' channel. Thread-safe.
 */
final class SharedReadProtocol implements LockProtocol {

    private final ReadLockProtocol read;
    private final ReadShares shares;
    private final Object key;
    private final Object writeIdentity;
    private final ReadShares.RedisSides sides;

    /**
     * @param read the read side
     * @param shares the client's shares
     * @param writeIdentity the write side's identity, under which the write lock's owners' holds are recorded
     */
    SharedReadProtocol(ReadLockProtocol read, ReadShares shares, Object writeIdentity) {
        this.read = read;
        this.shares = shares;
        this.key = shareKey(read);
        this.writeIdentity = writeIdentity;
        this.sides = (self, tokenBlock) -> new ReadSideRedis(read, self, tokenBlock);
    }

    /** @return what identifies the lock's share on its client: the lock hash on its Redis */
    static Object shareKey(ReadWriteSide side) {
        return side.context.lockId(side.keys.lock());
    }

    @Override
    public String name() {
        return read.name();
    }

    @Override
    public String kind() {
        return read.kind();
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        if (heldToken != 0) {
            ReadShare share = shares.existing(key);
            TryResult reentered = share == null ? null : share.reenter(owner, heldToken);
            return reentered != null ? CompletableFuture.completedFuture(reentered) : read.tryAcquire(owner, lease, heldToken);
        }
        if (!lease.renewed() || writes(owner)) {
            return read.tryAcquire(owner, lease, 0);
        }
        ReadShare.Routes routes = new ReadShare.Routes() {
            @Override
            public CompletableFuture<TryResult> again() {
                return tryAcquire(owner, lease, 0);
            }

            @Override
            public CompletableFuture<TryResult> own() {
                return read.tryAcquire(owner, lease, 0);
            }
        };
        while (true) {
            CompletableFuture<TryResult> tried = shares.of(key, sides).tryNew(owner, lease, routes);
            if (tried != null) {
                return tried;
            }
        }
    }

    /** @return whether the owner holds the write lock: its read then goes beside it in Redis */
    private boolean writes(long owner) {
        Hold writing = read.holdRegistry().find(writeIdentity, owner);
        return writing != null && writing.isHeld();
    }

    @Override
    public CompletableFuture<Void> release(long owner) {
        ReadShare share = shares.existing(key);
        CompletableFuture<Void> released = share == null ? null : share.release(owner);
        return released != null ? released : read.release(owner);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return read.abandon(owner);
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        return read.wakeups(owner);
    }

    @Override
    public @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        return read.wakeupsIfWaitedFor(owner);
    }

    @Override
    public HoldRegistry holdRegistry() {
        return read.holdRegistry();
    }

    @Override
    public Object identity() {
        return read.identity();
    }

    @Override
    public Ticker ticker() {
        return read.ticker();
    }

    @Override
    public Timer timer() {
        return read.timer();
    }

    @Override
    public Duration commandTimeout() {
        return read.commandTimeout();
    }

    /** Ends every read hold; the client's shared hold among them, so its readers' holds are lost. */
    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return read.forceRelease().thenApply(ended -> {
            ReadShare share = shares.existing(key);
            if (ended && share != null) {
                share.losses().forced();
            }
            return ended;
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return read.isLocked();
    }

    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        ReadShare share = shares.existing(key);
        LocalRead local = share == null ? null : share.localRead(owner);
        return local == null ? read.holdCount(owner) : local.confirmed();
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        return read.remainingLease();
    }

    @Override
    public String toString() {
        return "SharedReadProtocol{" + read.name() + '}';
    }
}
