package io.latchkey.redlock.internal;

import io.latchkey.LockException;
import io.latchkey.internal.lock.Lease;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.wakeup.Wakeups;
import io.latchkey.internal.watchdog.LeaseRenewer.LeaseListener;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One master of a RedLock: the plain lock of the RedLock's name on that master, with the bound
 * on its answer to one acquire (its client's {@code redLockAttemptTimeout}). A master that could
 * not be reached when the lock was made has no lock: every call to it fails at once, so it
 * counts as a master that does not answer. Immutable.
 */
final class Master {

    private final ReentrantLockProtocol protocol;
    private final Duration attemptTimeout;
    private final String description;
    private final LockException unreachable;

    private Master(ReentrantLockProtocol protocol, Duration attemptTimeout, String description, LockException unreachable) {
        this.protocol = protocol;
        this.attemptTimeout = attemptTimeout;
        this.description = description;
        this.unreachable = unreachable;
    }

    /**
     * @param protocol the plain lock on this master
     * @param attemptTimeout the bound on this master's answer to one acquire
     */
    static Master of(ReentrantLockProtocol protocol, Duration attemptTimeout) {
        return new Master(protocol, attemptTimeout, protocol.context().executor().toString(), null);
    }

    /**
     * @param address the master's address
     * @param attemptTimeout the bound its answers would have
     * @param cause why it could not be connected to
     */
    static Master unreachable(String address, Duration attemptTimeout, LockException cause) {
        return new Master(null, attemptTimeout, address, cause);
    }

    /** @return false for a master that could not be reached when the lock was made */
    boolean isReachable() {
        return protocol != null;
    }

    /** @return the plain lock on this master; only for a reachable master */
    ReentrantLockProtocol protocol() {
        return protocol;
    }

    /** @return the master's client machinery, equal for every lock of one client; only for a reachable master */
    LockContext context() {
        return protocol.context();
    }

    Duration attemptTimeout() {
        return attemptTimeout;
    }

    long attemptTimeoutNanos() {
        return attemptTimeout.toNanos();
    }

    CompletableFuture<Long> tryAcquire(long owner, Lease lease) {
        return call(plain -> plain.tryAcquire(owner, lease));
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
        if (reply.isDone() || protocol == null) {
            return reply.copy();
        }
        return AnswerDeadline.bound(reply, attemptTimeoutNanos(), context().timer());
    }

    /** @return the query's answer from this master; fails at once for an unreachable one */
    <T> CompletableFuture<T> call(Function<ReentrantLockProtocol, CompletableFuture<T>> call) {
        if (protocol == null) {
            return CompletableFuture.failedFuture(new LockException("RedLock master " + description
                    + " could not be reached when this lock was made: " + unreachable.getMessage(), unreachable));
        }
        try {
            return call.apply(protocol);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** @return the lease each watchdog renewal on this master resets, in nanoseconds */
    long renewedLeaseNanos() {
        return context().renewer().lease().toNanos();
    }

    /**
     * @param owner the owner id
     * @return the listener this owner's hold is renewed with on this master, or null if it is not
     */
    LeaseListener registered(long owner) {
        if (protocol == null) {
            return null;
        }
        LockContext context = context();
        return context.renewer().listener(context.executor(), protocol.keys().lock(), context.field(owner));
    }

    /** Renews this owner's hold on this master with the watchdog, unless it already is. */
    void register(long owner, LeaseListener listener) {
        LockContext context = context();
        context.renewer().register(context.executor(), protocol.keys().lock(), context.field(owner), listener);
    }

    /** Stops renewing this owner's hold on this master if it is renewed with {@code listener}. */
    void cancel(long owner, LeaseListener listener) {
        if (registered(owner) == listener) {
            LockContext context = context();
            context.renewer().cancel(context.executor(), protocol.keys().lock(), context.field(owner));
        }
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
