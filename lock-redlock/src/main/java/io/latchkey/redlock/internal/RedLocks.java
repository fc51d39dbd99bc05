package io.latchkey.redlock.internal;

import io.latchkey.DistributedLock;
import io.latchkey.spi.LockFacades;

/** Makes RedLocks, for {@code RedLock.of} and {@code LockClient.getRedLock} alike. */
public final class RedLocks {

    private RedLocks() {
    }

    /**
     * @param locks the plain locks of one name, one per independent master
     * @param lostLeaseListener told after a renewed hold was lost and logged
     * @return the RedLock, with the one acquire loop of every lock kind
     * @throws IllegalArgumentException as {@link RedLockProtocol#over} does
     */
    public static DistributedLock of(DistributedLock[] locks, LostLeaseListener lostLeaseListener) {
        RedLockProtocol protocol = RedLockProtocol.over(locks, lostLeaseListener);
        return LockFacades.serve(protocol, protocol.shortestMasterLease());
    }
}
