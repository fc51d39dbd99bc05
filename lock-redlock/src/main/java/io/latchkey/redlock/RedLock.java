package io.latchkey.redlock;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.redlock.internal.LostLeaseListener;
import io.latchkey.redlock.internal.RedLocks;

/**
 * RedLock: one lock over several independent Redis masters, held only while a majority of them
 * hold it, so that it survives the crash or loss of a minority of masters.
 *
 * <p>Most applications configure the masters once and call {@link LockClient#getRedLock(String)}:
 * <pre>{@code
 * LockClient client = LockClient.create(LockConfig.builder()
 *         .redLockAddresses("redis://m1:6379", "redis://m2:6379", "redis://m3:6379")
 *         .build());
 * DistributedLock lock = client.getRedLock("orders");
 * }</pre>
 * {@link #of(DistributedLock...)} composes the plain locks of clients that the application
 * already has, one client per master.
 *
 * <h2>What it guarantees</h2>
 * <ul>
 *   <li><b>Quorum.</b> A try asks every master at once, each with the whole lease and each
 *       bounded by that client's {@link LockConfig#redLockAttemptTimeout()} (100 ms by default).
 *       It succeeds only when a majority (N/2+1) granted and the lease, less the time the try
 *       took (measured with {@link System#nanoTime()}) and less a clock-drift allowance of
 *       1 % of the lease plus 2 ms, is still positive. Otherwise it releases every master,
 *       including those that did not answer in time, and retries after a random delay until the
 *       wait runs out.</li>
 *   <li><b>Waiting.</b> Waiters are woken by the unlock message of any master and then wait a
 *       random delay of up to a quarter of the attempt timeout, so that contenders do not split
 *       the masters between them; without a message they retry once enough of the holder's
 *       leases have run out.</li>
 *   <li><b>Re-entry.</b> The same owner may lock again; every master counts its holds, and it
 *       takes as many unlocks. {@code unlock()} releases on every master and throws
 *       {@link IllegalMonitorStateException} when a majority did not hold the lock.</li>
 *   <li><b>Leases.</b> A fixed lease ({@code lock(lease)}, {@code tryLock(wait, lease)}) is never
 *       renewed. The watchdog lease ({@code lock()}, {@code tryLock(wait)}) is renewed on every
 *       master by that master's watchdog; the hold lasts only while renewals keep succeeding on a
 *       majority. When fewer remain, the hold is over: it is logged at WARN as a lost lease and
 *       the remaining renewals stop.</li>
 *   <li><b>Local hand-off.</b> With the client's {@link LockConfig#localHandOff()} on (the
 *       default), a RedLock of {@link LockClient#getRedLock(String)} is passed between the
 *       owners of that client as its plain locks are: the client takes the quorum under an owner
 *       id of its own (one try as above, reserving a block of fencing tokens on each granting
 *       master and raising a majority to the block's end) and passes it from a releasing owner to
 *       a waiting one without a round trip, while the quorum's lease as confirmed lasts and within
 *       the hand-off bounds while another client waits. Fixed leases go to the masters as
 *       always. {@link #of(DistributedLock...)} composes locks of several clients and has no
 *       hand-off.</li>
 *   <li><b>Queries</b> answer what a majority says: {@code isLocked()} when a majority hold the
 *       lock, {@code getHoldCount()} and {@code remainingLease()} the value that a majority
 *       reach.</li>
 *   <li><b>Failures.</b> Every call fails with {@link io.latchkey.LockException} when fewer than
 *       a majority of masters answer: within the attempt timeout for a try, within the command
 *       timeout otherwise. A minority that is down or slow costs at most one attempt timeout per
 *       try. {@code LockClient.create} with {@code redLockAddresses} connects to every master and
 *       fails unless a majority can be reached. One that cannot counts as not answering, and the
 *       client keeps connecting to it in the background, one command timeout later at first and
 *       backing off to ten command timeouts between tries; once connected, every RedLock of the
 *       client uses it, also those made before. Neither {@code getRedLock} nor any lock call
 *       waits for such a connect.</li>
 * </ul>
 *
 * <h2>What it does not guarantee</h2>
 * <ul>
 *   <li>A master that restarts without persistence has forgotten its holds, and the same lock
 *       can then be granted to a second owner by a new majority. Keep a restarted master out
 *       for longer than the longest lease, or run it with {@code appendfsync always}.</li>
 *   <li>Expiry is each master's own clock: a master whose clock jumps forward expires holds
 *       early. The drift allowance covers rate differences, not jumps.</li>
 *   <li>Nothing stops an owner that pauses (GC, a stalled host) after acquiring from acting on
 *       a lease that has run out meanwhile. Where correctness depends on the lock, make the
 *       protected resource reject stale owners, e.g. with fencing tokens.</li>
 * </ul>
 *
 * <p>Locks returned here are thread-safe and have the full async API of
 * {@link DistributedLock}; the owner of a blocking call is the calling thread.
 */
public final class RedLock {

    private RedLock() {
    }

    /**
     * Composes a RedLock from one plain lock per master.
     *
     * @param locks at least three locks of the same name from {@link LockClient#getLock(String)},
     *     each from its own {@link LockClient} connected to its own independent master; the
     *     clients' {@code redLockAttemptTimeout} bounds each master's answer to a try, and the
     *     shortest {@code watchdogTimeout} among them is the RedLock's watchdog lease; not null
     * @return the RedLock, named as the given locks, valid until one of the clients is closed
     * @throws NullPointerException if {@code locks} or one of its elements is null
     * @throws IllegalArgumentException if fewer than three locks are given, one is not a plain
     *     lock of {@code LockClient.getLock} (a fair lock or another RedLock), their names
     *     differ, or two come from the same client or the same address
     */
    public static DistributedLock of(DistributedLock... locks) {
        return RedLocks.of(locks, LostLeaseListener.NONE);
    }

    /** As {@link #of(DistributedLock...)}, telling {@code lostLeaseListener} of lost leases; for tests. */
    static DistributedLock of(LostLeaseListener lostLeaseListener, DistributedLock... locks) {
        return RedLocks.of(locks, lostLeaseListener);
    }
}
