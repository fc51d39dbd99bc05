package io.latchkey.redlock.internal;

import io.latchkey.LockException;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockServer;
import io.latchkey.spi.PlainLock;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Script;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One master of a RedLock: the plain lock of the RedLock's name on that master, with the bound
 * on its answer to one acquire (its client's {@code redLockAttemptTimeout}).
 *
 * <p>A master given as a plain lock ({@code RedLock.of}) always has it. A master of
 * {@code getRedLock} has it once its {@link MasterConnection} is connected, which it asks anew on
 * every call until then: while the connection is not up, every call to the master fails at once,
 * so it counts as a master that does not answer in that try, and nobody waits for the connect.
 * Thread-safe.
 */
final class Master {

    private static final Script RAISE_FENCE = Script.load(Master.class, "raise-fence.lua");

    /** Null for a master given as a plain lock. */
    private final @Nullable MasterConnection connection;
    private final String lockName;
    private final Duration attemptTimeout;
    private final String description;
    /** Null until the connection is up; then never changes. */
    private volatile @Nullable PlainLock protocol;

    private Master(@Nullable MasterConnection connection, String lockName, Duration attemptTimeout, String description,
                   @Nullable PlainLock protocol) {
        this.connection = connection;
        this.lockName = lockName;
        this.attemptTimeout = attemptTimeout;
        this.description = description;
        this.protocol = protocol;
    }

    /**
     * @param protocol the plain lock on this master
     * @param attemptTimeout the bound on this master's answer to one acquire
     */
    static Master of(PlainLock protocol, Duration attemptTimeout) {
        return new Master(null, protocol.name(), attemptTimeout, protocol.context().executor().toString(), protocol);
    }

    /**
     * @param connection the master's connection, up or not
     * @param lockName the RedLock's name
     */
    static Master over(MasterConnection connection, String lockName) {
        return new Master(connection, lockName, connection.attemptTimeout(), connection.shown(), null);
    }

    /** @return the plain lock on this master, or null while its connection is not up; never blocks */
    @Nullable PlainLock protocol() {
        PlainLock plain = protocol;
        LockServer server = plain == null && connection != null ? connection.context() : null;
        if (server != null) {
            synchronized (this) { // one plain lock per Master, as for a master given as a plain lock
                plain = protocol;
                if (plain == null) {
                    plain = server.plainLock(lockName);
                    protocol = plain;
                }
            }
        }
        return plain;
    }

    /**
     * @return the plain lock on this master; only for a connected master: one given as a plain
     *     lock, or one that answered (a connection, once up, stays so)
     */
    PlainLock connected() {
        return Objects.requireNonNull(protocol(), "only a master that is connected has its plain lock");
    }

    /** @return the master's client machinery, equal for every lock of one client; only for a connected master */
    LockServer context() {
        return connected().context();
    }

    Duration attemptTimeout() {
        return attemptTimeout;
    }

    long attemptTimeoutNanos() {
        return attemptTimeout.toNanos();
    }

    /**
     * @param newHold true for the first acquisition of a RedLock hold, which replaces whatever
     *     hold of the owner this master may still have from a hold given up for lost; false for a
     *     re-entry, which re-enters the owner's hold here or, if this master lost it, takes the lock anew
     * @return the master's answer; a grant's renewal is never started here: {@link QuorumLease}
     *     renews RedLock holds on every master, and the RedLock records its holds itself
     */
    CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, boolean newHold) {
        return call(plain -> newHold ? plain.tryAcquireNew(owner, lease) : plain.tryAcquire(owner, lease, 0));
    }

    /**
     * Ends the owner's hold on this master, if it still has it, once the RedLock gave the hold up
     * for lost; a master that is not connected has nothing of it.
     *
     * @param token the token this master gave the hold
     */
    void endLost(long owner, long token) {
        PlainLock plain = protocol();
        if (plain != null) {
            plain.endLost(owner, token);
        }
    }

    /**
     * @param token a RedLock hold's token
     * @return the master's fencing counter for the lock, raised to at least {@code token}
     */
    CompletableFuture<Long> raiseFence(long token) {
        return call(plain -> plain.context().executor().eval(lockName, RAISE_FENCE, ScriptOutputType.INTEGER,
                new String[] {plain.keys().fenceCounter()}, Long.toString(token)));
    }

    /** @return what identifies this master on the client: equal for every lock over it */
    Object identity() {
        return connection != null ? connection : connected().context().lockId(lockName);
    }

    CompletableFuture<Void> release(long owner) {
        return call(plain -> plain.release(owner));
    }

    CompletableFuture<Wakeups> wakeups(long owner) {
        return call(plain -> plain.wakeups(owner));
    }

    /**
     * @param reply this master's reply to an acquire or a subscription
     * @param <T> the reply type
     * @return a copy of {@code reply} that fails with {@link java.util.concurrent.TimeoutException}
     *     once the attempt timeout has passed without it, signalled on this master's client timer
     */
    <T> CompletableFuture<T> withinAttemptTimeout(CompletableFuture<T> reply) {
        PlainLock plain = protocol();
        if (reply.isDone() || plain == null) {
            return reply.copy();
        }
        return AnswerDeadline.bound(reply, attemptTimeoutNanos(), plain.context().timer());
    }

    /** @return the query's answer from this master; fails at once while its connection is not up */
    <T> CompletableFuture<T> call(Function<PlainLock, CompletableFuture<T>> call) {
        PlainLock plain = protocol();
        if (plain == null) {
            // Only a master over a connection lacks its plain lock: one given as a plain lock has it from the start.
            LockException why = Objects.requireNonNull(connection, "a master without its plain lock has a connection").failure();
            return CompletableFuture.failedFuture(RedLockFailures.masterNotConnected(description, why));
        }
        try {
            return call.apply(plain);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Renews this owner's hold on this master with the watchdog, unless it already is; only for a
     * master that granted the hold, and so is connected.
     *
     * @return the registration, active while the watchdog renews the hold with {@code lease}
     */
    LeaseRegistration register(long owner, RenewedLease lease) {
        PlainLock plain = connected();
        return plain.context().register(plain.keys().lock(), owner, lease);
    }

    /**
     * The allowance for clock drift between the client and a master over a lease, as the RedLock
     * algorithm fixes it: 1 % of the lease plus 2 ms.
     *
     * @param leaseNanos a lease
     * @return the drift allowance, in nanoseconds
     */
    static long driftNanos(long leaseNanos) {
        return leaseNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2);
    }

    @Override
    public String toString() {
        return description;
    }
}
