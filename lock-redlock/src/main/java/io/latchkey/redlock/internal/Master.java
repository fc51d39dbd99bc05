package io.latchkey.redlock.internal;

import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.watchdog.LeaseRenewer.LeaseListener;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One master of a RedLock: the plain lock of the same name on that master, and how long one
 * acquire may wait for it (its client's {@code redLockAttemptTimeout}).
 *
 * @param protocol the plain lock on this master
 * @param attemptTimeout the bound on this master's answer to one acquire
 */
record Master(ReentrantLockProtocol protocol, Duration attemptTimeout) {

    /** @return the master's client machinery; equal for every lock of one client */
    LockContext context() {
        return protocol.context();
    }

    long attemptTimeoutNanos() {
        return attemptTimeout.toNanos();
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
        return context().executor().toString();
    }
}
