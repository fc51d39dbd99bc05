package io.latchkey.redlock.internal;

import io.latchkey.spi.KindContext;
import io.latchkey.spi.LockKind;
import io.latchkey.spi.LockKindProvider;

/**
 * Plugs the RedLock into {@code LockClient.getRedLock}, found by {@link java.util.ServiceLoader}.
 * Public only because the service loader needs it; not part of the API.
 */
public final class RedLockKindProvider implements LockKindProvider {

    /** For the service loader. */
    public RedLockKindProvider() {
    }

    @Override
    public Kind kind() {
        return Kind.RED;
    }

    @Override
    public LockKind open(KindContext client) {
        return RedLockKind.open(client);
    }
}
