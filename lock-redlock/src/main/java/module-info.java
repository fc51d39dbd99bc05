/**
 * Latchkey RedLock: a lock held only while a majority of independent Redis masters hold it.
 * Exports {@link io.latchkey.redlock.RedLock} only; {@code LockClient.getRedLock} finds the lock
 * kind through the service below.
 */
module io.latchkey.redlock {
    requires transitive io.latchkey.core;
    requires io.netty.common;
    requires org.slf4j;

    exports io.latchkey.redlock;

    provides io.latchkey.internal.client.LockKindProvider with io.latchkey.redlock.internal.RedLockKindProvider;
}
