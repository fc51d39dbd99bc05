/**
 * Latchkey RedLock: a lock held only while a majority of independent Redis masters hold it.
 * Exports {@link io.latchkey.redlock.RedLock} only; {@code LockClient.getRedLock} finds the lock
 * kind through the service below.
 */
module io.latchkey.redlock {
    requires transitive io.latchkey.core;
    requires io.netty.common;
    requires org.slf4j;
    // The fencing script is run through lock-core's executor with Lettuce's ScriptOutputType.
    requires lettuce.core;

    // The script is a resource of this package, read by lock-core's script loader.
    opens io.latchkey.redlock.internal to io.latchkey.core;

    exports io.latchkey.redlock;

    provides io.latchkey.spi.LockKindProvider with io.latchkey.redlock.internal.RedLockKindProvider;
}
