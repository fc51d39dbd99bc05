/**
 * Latchkey's fair lock: {@link io.latchkey.LockClient#getFairLock(String)} finds it through
 * {@link java.util.ServiceLoader} once this module is present. It exports nothing: the fair
 * lock is used through {@link io.latchkey.DistributedLock}.
 */
module io.latchkey.fair {
    requires io.latchkey.core;
    // The fair scripts are run through lock-core's executor with Lettuce's ScriptOutputType.
    requires lettuce.core;
    // The fair lock hands the acquire loop the client's timer, a Netty Timer.
    requires io.netty.common;

    // The scripts are resources of this package, read by lock-core's script loader.
    opens io.latchkey.internal.fair to io.latchkey.core;

    provides io.latchkey.spi.LockKindProvider with io.latchkey.internal.fair.FairLockKindProvider;
}
