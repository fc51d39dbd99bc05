package io.latchkey.spring.integration;

import io.latchkey.LockClient;
import java.util.Objects;
import java.util.function.BiFunction;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Latchkey's locks as a Spring Integration {@link LockRegistry}, for what takes one: leader
 * election ({@code LockRegistryLeaderInitiator}), aggregators, idempotent receivers. A key names
 * the lock ({@code toString()} of a key that is not a string); each {@link #obtain} gives a lock
 * object of that name, with the semantics of {@link LockClient#getLock} (or the kind given):
 * reentrant per thread, a watchdog lease unless a time-to-live is passed, fencing tokens. The
 * client keeps nothing per name between holds, so there is nothing to expire.
 */
public final class LatchkeyLockRegistry implements LockRegistry<DistributedLock> {

    private final LockClient client;
    private final BiFunction<LockClient, String, io.latchkey.DistributedLock> kind;

    private LatchkeyLockRegistry(LockClient client, BiFunction<LockClient, String, io.latchkey.DistributedLock> kind) {
        this.client = Objects.requireNonNull(client, "client");
        this.kind = kind;
    }

    /**
     * A registry of plain locks.
     *
     * @param client the client whose locks to give; not null
     * @return a registry of the client's plain locks ({@link LockClient#getLock})
     */
    public static LatchkeyLockRegistry of(LockClient client) {
        return new LatchkeyLockRegistry(client, LockClient::getLock);
    }

    /**
     * A registry of fair locks.
     *
     * @param client the client whose locks to give; not null
     * @return a registry of the client's fair locks ({@link LockClient#getFairLock}): waiters get the lock in arrival order
     */
    public static LatchkeyLockRegistry fair(LockClient client) {
        return new LatchkeyLockRegistry(client, LockClient::getFairLock);
    }

    /**
     * The lock a key names.
     *
     * @param lockKey the lock's name, or an object whose {@code toString()} is; not null
     * @return the lock of that name
     * @throws IllegalArgumentException if the name is not one a lock may have (see {@link LockClient#getLock})
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey");
        return new IntegrationLock(kind.apply(client, lockKey instanceof String name ? name : lockKey.toString()));
    }

    @Override
    public String toString() {
        return "LatchkeyLockRegistry{" + client + '}';
    }
}
