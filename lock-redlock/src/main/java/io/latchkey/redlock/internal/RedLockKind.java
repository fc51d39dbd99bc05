package io.latchkey.redlock.internal;

import io.latchkey.DistributedLock;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.KindContext;
import io.latchkey.spi.LocalHandOffs;
import io.latchkey.spi.LockFacades;
import io.latchkey.spi.LockKind;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Ticker;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The RedLocks of one {@code LockClient}: one connection per master of {@code redLockAddresses},
 * each on the client's own event loops, timer and watchdog ({@link KindContext#connect}).
 *
 * <p>Opening needs a majority of the masters. One that cannot be reached then counts as a master
 * that does not answer, and is connected in the background (see {@link MasterConnection}); every
 * RedLock of this client, also one made before, uses it from then on. {@link #lock(String)}
 * never connects and never blocks.
 *
 * <p>With the client's local hand-off on ({@link LockConfig#localHandOff()}), a RedLock's quorum
 * hold is passed between the client's owners as the plain lock's is ({@link RedLockRedis}), in
 * cohorts of the kind's own, closed before the masters' connections. Thread-safe.
 */
final class RedLockKind implements LockKind {

    private static final Logger log = LoggerFactory.getLogger(RedLockKind.class);
    /** How long an idle connector thread stays: connects are rare, so it rarely does. */
    private static final long CONNECTOR_KEEP_ALIVE_SECONDS = 10;

    private final LockConfig config;
    private final List<MasterConnection> masters;
    private final Timer timer;
    private final Ticker ticker;
    private final ExecutorService connector;
    private final HoldRegistry holds;
    /** The client's id, as every master's scripts see it. */
    private final String clientId;
    /** The RedLocks' local hand-off; null when it is off. */
    private final @Nullable LocalHandOffs cohorts;

    private RedLockKind(LockConfig config, List<MasterConnection> masters, Timer timer, Ticker ticker,
                        ExecutorService connector, HoldRegistry holds, String clientId) {
        this.clientId = clientId;
        this.cohorts = config.localHandOff().map(LocalHandOffs::new).orElse(null);
        this.config = config;
        this.masters = masters;
        this.timer = timer;
        this.ticker = ticker;
        this.connector = connector;
        this.holds = holds;
    }

    /**
     * Connects to every master, on the caller's thread.
     *
     * @throws IllegalStateException if no {@code redLockAddresses} are configured
     * @throws LockException if fewer than a majority of the masters can be reached
     */
    static RedLockKind open(KindContext client) {
        LockConfig config = client.config();
        if (config.redLockAddresses().isEmpty()) {
            throw new IllegalStateException("getRedLock needs the setting redLockAddresses: "
                    + "LockConfig.builder().redLockAddresses(...) with at least three independent masters");
        }
        List<MasterConnection> masters = config.redLockAddresses().stream()
                .map(address -> new MasterConnection(address, client)).toList();
        try {
            masters.forEach(MasterConnection::connectNow);
        } catch (RuntimeException | Error e) {
            masters.forEach(MasterConnection::close);
            throw e;
        }
        List<MasterConnection> unreachable = masters.stream().filter(master -> master.context() == null).toList();
        int majority = masters.size() / 2 + 1;
        if (masters.size() - unreachable.size() < majority) {
            masters.forEach(MasterConnection::close);
            LockException first = whyUnreachable(unreachable.get(0));
            throw RedLockFailures.mastersUnreachable(masters.size() - unreachable.size(), masters.size(), majority, first);
        }
        Timer timer = client.timer();
        // Connects block, so they never run on the timer; one in flight per master at most.
        ThreadPoolExecutor connector = new ThreadPoolExecutor(0, masters.size(), CONNECTOR_KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), new DefaultThreadFactory("latchkey-redlock-connect", true));
        for (MasterConnection master : unreachable) {
            log.warn("RedLock master {} cannot be reached; it counts as not answering until the client, which keeps "
                    + "trying in the background, has connected to it: {}", master, whyUnreachable(master).getMessage());
            master.reconnectInBackground(timer, connector);
        }
        String clientId = masters.stream().map(MasterConnection::context).filter(Objects::nonNull).findFirst().orElseThrow()
                .clientId();
        return new RedLockKind(config, masters, timer, client.ticker(), connector, client.holds(), clientId);
    }

    /** @return why a master could not be reached by {@link MasterConnection#connectNow()}, which records it */
    private static LockException whyUnreachable(MasterConnection master) {
        return Objects.requireNonNull(master.failure(), "a master that connectNow() left unconnected has its failure");
    }

    @Override
    public DistributedLock lock(String name) {
        List<Master> current = masters.stream().map(master -> Master.over(master, name)).toList();
        RedLockProtocol red = RedLockProtocol.of(name, current, timer, ticker, holds, LostLeaseListener.NONE);
        LockProtocol served = cohorts == null ? red : cohorts.protocol(red, (self, tokenBlock) ->
                new RedLockRedis(red, self, tokenBlock, clientId, config.commandTimeout(), config.watchdogTimeout()));
        return LockFacades.serve(served, config.watchdogTimeout());
    }

    @Override
    public void close() {
        if (cohorts != null) {
            // Before the masters' connections: a local waiter woken by the close must find the
            // client closed, not try a master on a connection that is closing.
            cohorts.close();
        }
        masters.forEach(MasterConnection::close);
        // Interrupts a connect in flight: Lettuce's blocking connect waits on a future that the
        // closing client's event loops may never complete, and the thread would stay for ever.
        connector.shutdownNow();
    }
}
