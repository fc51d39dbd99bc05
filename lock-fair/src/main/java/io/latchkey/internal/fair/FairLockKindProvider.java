package io.latchkey.internal.fair;

import io.latchkey.DistributedLock;
import io.latchkey.spi.KindContext;
import io.latchkey.spi.LockFacades;
import io.latchkey.spi.LockKind;
import io.latchkey.spi.LockKindProvider;
import io.latchkey.spi.LockServer;

/**
 * Plugs the fair lock into {@code LockClient.getFairLock} through
 * {@link java.util.ServiceLoader}. Thread-safe; a public no-argument constructor, as the
 * service loader needs.
 */
public final class FairLockKindProvider implements LockKindProvider {

    @Override
    public Kind kind() {
        return Kind.FAIR;
    }

    @Override
    public LockKind open(KindContext client) {
        return new FairLockKind(client.lockContext());
    }

    /** Fair locks of one client; they keep no state of their own, so there is nothing to close. */
    private record FairLockKind(LockServer context) implements LockKind {

        @Override
        public DistributedLock lock(String name) {
            return LockFacades.serve(new FairLockProtocol(name, context), context.watchdogLease());
        }

        @Override
        public void close() {
            // The client closes the connections, subscriptions and watchdog the locks share.
        }
    }
}
