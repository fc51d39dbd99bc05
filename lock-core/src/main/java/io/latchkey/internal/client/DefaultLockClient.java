package io.latchkey.internal.client;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.LockFacade;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.lock.UnsettledCalls;
import io.latchkey.internal.time.Ticker;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link LockClient}: one topology's connections, one timer, one watchdog, and the lock kinds
 * of other modules opened on first use. Thread-safe.
 */
public final class DefaultLockClient implements LockClient {

    /** Fine enough for wait bounds measured in milliseconds, coarse enough to cost nothing idle. */
    private static final long TIMER_TICK_MILLIS = 10;

    private final LockConfig config;
    private final HashedWheelTimer timer;
    private final RedisTopology topology;
    private final LockContext context;
    private final Map<String, LockKind> kinds = new HashMap<>();
    private boolean closed;

    private DefaultLockClient(LockConfig config, HashedWheelTimer timer, Ticker ticker, RedisTopology topology) {
        this.config = config;
        this.timer = timer;
        this.topology = topology;
        if (topology == null) {
            this.context = null;
        } else {
            UnlockSubscriptions subscriptions = new UnlockSubscriptions(topology.subscriptionCommands(), timer);
            topology.listen(subscriptions);
            this.context = new LockContext(UUID.randomUUID().toString(), config, topology.executor(), subscriptions,
                    new LeaseRenewer(timer, ticker, config.watchdogTimeout()), timer, ticker, topology.publishCommand(),
                    new UnsettledCalls(timer));
        }
    }

    /**
     * @param config the validated configuration
     * @return a client connected to the configured Redis, and to the RedLock masters if any are
     *     configured and lock-redlock is on the class path (without it, {@link #getRedLock}
     *     says that it is missing)
     */
    public static DefaultLockClient connect(LockConfig config) {
        Objects.requireNonNull(config, "config");
        HashedWheelTimer timer = new HashedWheelTimer(new DefaultThreadFactory("latchkey-timer", true),
                TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS, 512);
        Ticker ticker = Ticker.system();
        try {
            RedisTopology topology = config.address().map(address -> (RedisTopology) StandaloneTopology.connect(address, config))
                    .orElse(null);
            if (topology == null && !config.clusterAddresses().isEmpty()) {
                topology = ClusterTopology.connect(config.clusterAddresses(), config, ticker);
            }
            DefaultLockClient client = new DefaultLockClient(config, timer, ticker, topology);
            if (!config.redLockAddresses().isEmpty()) {
                // Fails now, as a client of an unreachable address does, not at the first getRedLock.
                try {
                    client.provider(LockKindProvider.RED).ifPresent(provider -> client.open(LockKindProvider.RED, provider));
                } catch (RuntimeException e) {
                    client.close();
                    throw e;
                }
            }
            return client;
        } catch (RuntimeException e) {
            timer.stop();
            throw e;
        }
    }

    /** @return the configuration */
    public LockConfig config() {
        return config;
    }

    /** @return the shared machinery of Redis-backed locks; empty if only RedLock masters are configured */
    public Optional<LockContext> context() {
        return Optional.ofNullable(context);
    }

    @Override
    public DistributedLock getLock(String name) {
        return new LockFacade(new ReentrantLockProtocol(requireName(name), requireContext()));
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return kind(LockKindProvider.FAIR, "io.latchkey:lock-fair").lock(requireName(name));
    }

    @Override
    public DistributedLock getRedLock(String name) {
        return kind(LockKindProvider.RED, "io.latchkey:lock-redlock").lock(requireName(name));
    }

    /**
     * @return the context of Redis-backed locks
     * @throws IllegalStateException if no single address or cluster is configured
     */
    public LockContext requireContext() {
        if (context == null) {
            throw new IllegalStateException("no Redis address configured: set LockConfig address or clusterAddresses");
        }
        return context;
    }

    private synchronized LockKind kind(String kind, String artifact) {
        if (closed) {
            throw new IllegalStateException("the LockClient is closed");
        }
        LockKind open = kinds.get(kind);
        if (open == null) {
            open = open(kind, provider(kind).orElseThrow(
                    () -> new IllegalStateException("this lock kind needs " + artifact + " on the class path")));
        }
        return open;
    }

    private Optional<LockKindProvider> provider(String kind) {
        return ServiceLoader.load(LockKindProvider.class, LockKindProvider.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.kind().equals(kind))
                .findFirst();
    }

    private synchronized LockKind open(String kind, LockKindProvider provider) {
        LockKind open = provider.open(this);
        kinds.put(kind, open);
        return open;
    }

    private static String requireName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty");
        }
        return name;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        kinds.values().forEach(LockKind::close);
        if (context != null) {
            context.renewer().close();
            settleOnceMore(context);
            context.subscriptions().close();
        }
        // Only after the subscriptions: HashedWheelTimer.stop() drops the timeouts it has not run,
        // so a wait bounded by one would never end; closing the subscriptions has failed every
        // pending wait, and fails every wait parked later by a try still in flight, with a LockException.
        timer.stop();
        if (topology != null) {
            topology.close();
        }
    }

    /**
     * Gives calls whose outcome is unknown one last chance, bounded by a round trip, so that a
     * client closed right after a failed unlock does not leave its lock to run out its lease.
     */
    private static void settleOnceMore(LockContext context) {
        long boundNanos = context.executor().commandTimeout().toNanos() * 2;
        try {
            context.unsettled().closeAsync().get(boundNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // what is left is bounded by its lease; closeAsync logged it
        }
    }

    @Override
    public String toString() {
        return "LockClient{" + config + '}';
    }
}
