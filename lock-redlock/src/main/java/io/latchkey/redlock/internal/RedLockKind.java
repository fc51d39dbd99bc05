package io.latchkey.redlock.internal;

import io.latchkey.DistributedLock;
import io.latchkey.LockConfig;
import io.latchkey.internal.client.DefaultLockClient;
import io.latchkey.internal.client.LockKind;
import java.util.ArrayList;
import java.util.List;

/**
 * The RedLocks of one {@code LockClient}: one internal client per master of
 * {@code redLockAddresses}, each with the outer client's timeouts, so each master has its own
 * connections, timer and watchdog. Thread-safe.
 */
final class RedLockKind implements LockKind {

    private final List<DefaultLockClient> masters;

    private RedLockKind(List<DefaultLockClient> masters) {
        this.masters = List.copyOf(masters);
    }

    /**
     * Connects to every master; all must be reachable now, while later a minority may fail.
     *
     * @throws IllegalStateException if no {@code redLockAddresses} are configured
     * @throws io.latchkey.LockException if a master cannot be reached
     */
    static RedLockKind open(LockConfig config) {
        if (config.redLockAddresses().isEmpty()) {
            throw new IllegalStateException("getRedLock needs the setting redLockAddresses: "
                    + "LockConfig.builder().redLockAddresses(...) with at least three independent masters");
        }
        List<DefaultLockClient> masters = new ArrayList<>(config.redLockAddresses().size());
        try {
            for (String address : config.redLockAddresses()) {
                masters.add(DefaultLockClient.connect(masterConfig(config, address)));
            }
        } catch (RuntimeException | Error e) {
            masters.forEach(DefaultLockClient::close);
            throw e;
        }
        return new RedLockKind(masters);
    }

    private static LockConfig masterConfig(LockConfig config, String address) {
        return LockConfig.builder()
                .address(address)
                .watchdogTimeout(config.watchdogTimeout())
                .commandTimeout(config.commandTimeout())
                .fairLockWaitTimeout(config.fairLockWaitTimeout())
                .redLockAttemptTimeout(config.redLockAttemptTimeout())
                .build();
    }

    @Override
    public DistributedLock lock(String name) {
        DistributedLock[] locks = masters.stream().map(master -> master.getLock(name)).toArray(DistributedLock[]::new);
        return RedLocks.of(locks, LostLeaseListener.NONE);
    }

    @Override
    public void close() {
        masters.forEach(DefaultLockClient::close);
    }
}
