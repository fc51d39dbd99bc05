package io.latchkey.internal.rw;

import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of one client's {@link ReadShare}, as the share uses it: the shared read hold
 * under the client's own owner id (acquire.lua with a token block, release.lua, reserve.lua), the
 * watchdog's renewals of it, the client's lost connections and its clock. {@link ReadSideRedis}
 * is the real one; lock-core's unit tests put a scripted one in its place to choose the
 * interleavings.
 */
interface ShareRedis {

    /** @return the lock's name */
    String lockName();

    /** @return the client's clock */
    Ticker ticker();

    /** @return the client's command timeout: the margin of a lease within which nobody is admitted */
    Duration commandTimeout();

    /**
     * A try for a new shared read hold, which reserves a block of tokens (its own the first) and
     * replaces a shared hold of the client that Redis may still have (one given up for lost).
     *
     * @param lease the watchdog lease
     * @return the try's result, as the read side's tries answer
     */
    CompletableFuture<TryResult> tryShareHold(LeaseTerm lease);

    /** @return releases the shared hold's one level */
    CompletableFuture<Void> releaseShareHold();

    /**
     * Ends the shared hold with token {@code token}, if Redis still has it, before the share's next call.
     *
     * @param token the lost hold's token
     */
    void endShareHold(long token);

    /**
     * @param token the shared hold's token
     * @return what reserve.lua found; a block of tokens reserved if the hold is there and no writer waits
     */
    CompletableFuture<Reserved> reserve(long token);

    /** @return whether Redis still has the shared hold (a query: changes nothing) */
    CompletableFuture<Boolean> holdsShareHold();

    /**
     * Hands the shared hold to the watchdog.
     *
     * @param lease told what the renewals find
     */
    void renew(RenewedLease lease);

    /**
     * Stops renewing the shared hold that {@code lease} is told of; a later shared hold of the
     * client's same field (taken since, on another thread) stays renewed.
     *
     * @param lease what {@link #renew} was given for that hold
     */
    void stopRenewing(RenewedLease lease);

    /**
     * @param lost told when a connection of the client is lost: Redis's data may be gone with it
     * @return stops telling; idempotent
     */
    Runnable observeConnection(Runnable lost);

    /**
     * What reserve.lua answered.
     *
     * @param held the shared hold is still there
     * @param writerWaits a live writer waits
     * @param firstToken the first token of the block reserved, or 0 if none was
     */
    record Reserved(boolean held, boolean writerWaits, long firstToken) {
    }
}
