package io.latchkey.redlock.internal;

import io.latchkey.DistributedLock;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.internal.client.DefaultLockClient;
import io.latchkey.internal.client.LockKind;
import io.latchkey.internal.lock.LockFacade;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RedLocks of one {@code LockClient}: one internal client per master of
 * {@code redLockAddresses}, each with the outer client's timeouts, so each master has its own
 * connections, timer and watchdog.
 *
 * <p>Opening needs a majority of the masters; one that cannot be reached then counts, in the
 * locks made meanwhile, as a master that never answers, and {@link #lock(String)} tries to
 * connect to it again, at most once every {@value #RETRY_COMMAND_TIMEOUTS} command timeouts.
 * Once connected, a master stays so: the client reconnects by itself. Thread-safe.
 */
final class RedLockKind implements LockKind {

    private static final Logger log = LoggerFactory.getLogger(RedLockKind.class);
    static final int RETRY_COMMAND_TIMEOUTS = 10;

    private final LockConfig config;
    private final List<MasterLink> masters;

    private RedLockKind(LockConfig config, List<MasterLink> masters) {
        this.config = config;
        this.masters = masters;
    }

    /**
     * Connects to every master.
     *
     * @throws IllegalStateException if no {@code redLockAddresses} are configured
     * @throws LockException if fewer than a majority of the masters can be reached
     */
    static RedLockKind open(LockConfig config) {
        if (config.redLockAddresses().isEmpty()) {
            throw new IllegalStateException("getRedLock needs the setting redLockAddresses: "
                    + "LockConfig.builder().redLockAddresses(...) with at least three independent masters");
        }
        List<MasterLink> masters = config.redLockAddresses().stream().map(address -> new MasterLink(address, config)).toList();
        try {
            masters.forEach(MasterLink::connect);
        } catch (RuntimeException | Error e) {
            masters.forEach(MasterLink::close);
            throw e;
        }
        List<MasterLink> unreachable = masters.stream().filter(master -> !master.isConnected()).toList();
        int majority = masters.size() / 2 + 1;
        if (masters.size() - unreachable.size() < majority) {
            masters.forEach(MasterLink::close);
            LockException first = unreachable.get(0).failure();
            throw new LockException("only " + (masters.size() - unreachable.size()) + " of " + masters.size()
                    + " RedLock masters can be reached, a majority of " + majority + " is needed: " + first.getMessage(), first);
        }
        unreachable.forEach(master -> log.warn("RedLock master {} cannot be reached; it counts as not answering until "
                + "getRedLock connects to it: {}", master.address, master.failure().getMessage()));
        return new RedLockKind(config, masters);
    }

    @Override
    public DistributedLock lock(String name) {
        List<Master> current = masters.stream().map(master -> master.master(name)).toList();
        return new LockFacade(RedLockProtocol.of(name, current, config.watchdogTimeout(), LostLeaseListener.NONE));
    }

    @Override
    public void close() {
        masters.forEach(MasterLink::close);
    }

    /** One configured master and the internal client connected to it, once it could be. */
    private static final class MasterLink {
        private final String address;
        private final LockConfig config;
        private final long retryNanos;
        private DefaultLockClient client;
        private LockException failure;
        private long retryAtNanos;
        private boolean closed;

        MasterLink(String address, LockConfig outer) {
            this.address = address;
            this.config = LockConfig.builder()
                    .address(address)
                    .watchdogTimeout(outer.watchdogTimeout())
                    .commandTimeout(outer.commandTimeout())
                    .fairLockWaitTimeout(outer.fairLockWaitTimeout())
                    .redLockAttemptTimeout(outer.redLockAttemptTimeout())
                    .build();
            this.retryNanos = outer.commandTimeout().multipliedBy(RETRY_COMMAND_TIMEOUTS).toNanos();
        }

        /** Blocks for at most the command timeout, the bound on connecting. */
        synchronized void connect() {
            if (closed || client != null) {
                return;
            }
            try {
                client = DefaultLockClient.connect(config);
                failure = null;
            } catch (LockException e) {
                failure = e;
                retryAtNanos = System.nanoTime() + retryNanos;
            }
        }

        synchronized boolean isConnected() {
            return client != null;
        }

        synchronized LockException failure() {
            return failure;
        }

        synchronized Master master(String name) {
            if (client == null && System.nanoTime() - retryAtNanos >= 0) {
                connect();
                if (client != null) {
                    log.info("RedLock master {} is reachable again", address);
                }
            }
            Duration attemptTimeout = config.redLockAttemptTimeout();
            if (client == null) {
                return Master.unreachable(address, attemptTimeout, failure);
            }
            return Master.of((ReentrantLockProtocol) ((LockFacade) client.getLock(name)).protocol(), attemptTimeout);
        }

        synchronized void close() {
            closed = true;
            if (client != null) {
                client.close();
            }
        }
    }
}
