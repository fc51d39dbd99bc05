package io.latchkey.internal.client;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.HeldLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.internal.cohort.Cohorts;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.LockFacade;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.lock.UnsettledCalls;
import io.latchkey.internal.multi.MultiHolds;
import io.latchkey.internal.multi.MultiLock;
import io.latchkey.internal.rw.ReadShares;
import io.latchkey.internal.rw.ReadWriteLockFacade;
import io.latchkey.internal.semaphore.LeasedSemaphore;
import io.latchkey.internal.semaphore.SemaphoreProtocol;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.KindContext;
import io.latchkey.spi.LockKind;
import io.latchkey.spi.LockKindProvider;
import io.latchkey.spi.LockKindProvider.Kind;
import io.latchkey.spi.Ticker;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LockClient}: one set of {@link SharedResources} (one timer, one set of event loops),
 * one watchdog and one record of unsettled calls, shared by the client's own Redis and every
 * further Redis a lock kind connects to (RedLock masters); and the lock kinds of other modules,
 * opened through a {@link KindContext} on first use. Thread-safe.
 */
public final class DefaultLockClient implements LockClient {

    private final LockConfig config;
    private final SharedResources resources;
    /** The clock of every deadline and elapsed time the client measures. */
    private final Ticker ticker;
    private final String clientId = UUID.randomUUID().toString();
    private final LeaseRenewer renewer;
    private final UnsettledCalls unsettled;
    private final HoldRegistry holds;
    /** The holds of multi-locks made by this client, shared by its multi-lock objects over the same locks. */
    private final MultiHolds multiHolds = new MultiHolds();
    /** How long a channel stays subscribed after its last waiter left, where local hand-off is on. */
    private static final Duration CHANNEL_LINGER = Duration.ofMillis(500);
    /** The plain locks' local hand-off; null when it is off. */
    private final @Nullable Cohorts cohorts;
    /** The read-write locks' shared reads, bounded as the plain locks' hand-off; null when it is off. */
    private final @Nullable ReadShares readShares;
    private final Kinds kindContext = new Kinds();
    /** The client's own Redis; null if only RedLock masters are configured. */
    private final @Nullable Connected own;
    /** Guarded by this: every Redis this client connected to, its own first. */
    private final List<Connected> connected = new ArrayList<>();
    /** Held while a kind is being opened. */
    private final Object opening = new Object();
    /** Guarded by this. */
    private final Map<Kind, LockKind> kinds = new EnumMap<>(Kind.class);
    /** Guarded by this. */
    private boolean closed;

    private DefaultLockClient(LockConfig config, SharedResources resources, Ticker ticker, @Nullable RedisTopology topology) {
        this.cohorts = config.localHandOff().map(Cohorts::new).orElse(null);
        this.readShares = config.localHandOff().map(ReadShares::new).orElse(null);
        this.config = config;
        this.resources = resources;
        this.ticker = ticker;
        LockEvents events = LockEvents.of(config.eventListener());
        this.renewer = new LeaseRenewer(resources.timer(), ticker, config.watchdogTimeout(), events);
        this.unsettled = new UnsettledCalls(resources.timer());
        this.holds = new HoldRegistry(resources.timer(), ticker, events);
        this.own = topology == null ? null : attach(topology);
    }

    /**
     * @param config the validated configuration
     * @return a client connected to the configured Redis, and to the RedLock masters if any are
     *     configured and lock-redlock is on the class path (without it, {@link #getRedLock}
     *     says that it is missing)
     */
    public static DefaultLockClient connect(LockConfig config) {
        Objects.requireNonNull(config, "config");
        SharedResources resources = SharedResources.create();
        Ticker ticker = Ticker.system();
        DefaultLockClient client;
        try {
            RedisTopology topology = config.address().map(address -> (RedisTopology) StandaloneTopology.connect(address, config, resources))
                    .orElse(null);
            if (topology == null && !config.clusterAddresses().isEmpty()) {
                topology = ClusterTopology.connect(config.clusterAddresses(), config, resources, ticker);
            }
            client = new DefaultLockClient(config, resources, ticker, topology);
        } catch (RuntimeException e) {
            resources.close();
            throw e;
        }
        if (!config.redLockAddresses().isEmpty()) {
            // Fails now, as a client of an unreachable address does, not at the first getRedLock.
            try {
                if (provider(Kind.RED).isPresent()) {
                    client.kind(Kind.RED);
                }
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
        }
        return client;
    }

    @Override
    public DistributedLock getLock(String name) {
        LockContext context = kindContext.lockContext();
        ReentrantLockProtocol plain = new ReentrantLockProtocol(LockNames.require(name, config.keyPrefix()), context);
        return new LockFacade(cohorts == null ? plain : cohorts.protocol(plain), context.watchdogLease());
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return kind(Kind.FAIR).lock(LockNames.require(name, config.keyPrefix()));
    }

    @Override
    public DistributedLock getRedLock(String name) {
        return kind(Kind.RED).lock(LockNames.require(name, config.keyPrefix()));
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        return new ReadWriteLockFacade(LockNames.require(name, config.keyPrefix()), kindContext.lockContext(), readShares);
    }

    @Override
    public DistributedSemaphore getSemaphore(String name, int permits) {
        LockNames.require(name, config.keyPrefix());
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1: " + permits);
        }
        LockContext context = kindContext.lockContext();
        return new LeasedSemaphore(new SemaphoreProtocol(name, permits, context), context.watchdogLease());
    }

    @Override
    public DistributedLock getMultiLock(DistributedLock... locks) {
        return MultiLock.over(locks, multiHolds, ticker, resources.timer(), config.commandTimeout());
    }

    @Override
    public List<HeldLock> heldLocks() {
        long now = ticker.read();
        List<HeldLock> held = new ArrayList<>();
        for (Hold hold : holds.held()) {
            if (SemaphoreProtocol.KIND.equals(hold.kind())) {
                continue; // a permit is a lease but no lock: no token, nothing to force-unlock
            }
            held.add(new HeldLock(hold.lockName(), hold.kind(), hold.owner(), hold.token(),
                    Duration.ofNanos(Math.max(0, now - hold.startedNanos())), Duration.ofNanos(hold.leaseLeftNanos(now)),
                    holds.waiters(hold)));
        }
        return held;
    }

    private LockKind kind(Kind kind) {
        // Opening may connect (RedLock masters) and so block: it runs under its own monitor, one
        // kind at a time, never under this client's, so that close() never waits for it.
        synchronized (opening) {
            synchronized (this) {
                requireOpen();
                LockKind open = kinds.get(kind);
                if (open != null) {
                    return open;
                }
            }
            LockKind opened = provider(kind).orElseThrow(
                    () -> new IllegalStateException("this lock kind needs " + kind.artifact() + " on the class path"))
                    .open(kindContext);
            synchronized (this) {
                if (!closed) {
                    kinds.put(kind, opened);
                    return opened;
                }
            }
            opened.close();
            throw new IllegalStateException("the LockClient is closed");
        }
    }

    private static Optional<LockKindProvider> provider(Kind kind) {
        return ServiceLoader.load(LockKindProvider.class, LockKindProvider.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .filter(candidate -> candidate.kind() == kind)
                .findFirst();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the LockClient is closed");
        }
    }

    /** Wires a connected topology to this client's shared machinery. */
    private Connected attach(RedisTopology topology) {
        // With local hand-off, a hot lock's waiters come and go on every hand-off: its channel lingers.
        UnlockSubscriptions subscriptions = new UnlockSubscriptions(topology.subscriptionCommands(), resources.timer(),
                cohorts == null ? Duration.ZERO : CHANNEL_LINGER);
        topology.listen(subscriptions);
        // A connection back may be back to a Redis that lost its data: find lost holds now.
        topology.onConnected(renewer::renewNow);
        LockContext context = new LockContext(clientId, config, topology.executor(), subscriptions, renewer,
                resources.timer(), ticker, topology.publishCommand(), unsettled, holds);
        Connected attached = new Connected(topology, context);
        synchronized (this) {
            if (!closed) {
                connected.add(attached);
                return attached;
            }
        }
        attached.close();
        throw new IllegalStateException("the LockClient is closed");
    }

    @Override
    public void close() {
        List<LockKind> openKinds;
        List<Connected> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            openKinds = new ArrayList<>(kinds.values());
            open = new ArrayList<>(connected);
        }
        openKinds.forEach(LockKind::close);
        if (cohorts != null) {
            // Before the holds are lost: a local waiter woken by a loss must find the client closed,
            // not try Redis on a connection that is still open.
            cohorts.close();
        }
        if (readShares != null) {
            readShares.close();
        }
        renewer.close();
        holds.close();
        settleOnceMore(open);
        open.forEach(Connected::close);
        resources.close();
    }

    /**
     * Gives calls whose outcome is unknown one last chance, bounded by a round trip, so that a
     * client closed right after a failed unlock does not leave its lock to run out its lease.
     */
    private void settleOnceMore(List<Connected> open) {
        if (open.isEmpty()) {
            unsettled.close();
            return;
        }
        long boundNanos = config.commandTimeout().toNanos() * 2;
        try {
            unsettled.closeAsync().get(boundNanos, TimeUnit.NANOSECONDS);
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

    /** One connected Redis: its connections and the lock machinery on them. */
    private record Connected(RedisTopology topology, LockContext context) {

        /** Fails every wait on it, then closes its connections. */
        void close() {
            context.subscriptions().close();
            topology.close();
        }
    }

    /** The client as its lock kinds see it. */
    private final class Kinds implements KindContext {

        @Override
        public LockConfig config() {
            return config;
        }

        @Override
        public LockContext lockContext() {
            if (own == null) {
                throw new IllegalStateException("no Redis address configured: set LockConfig address or clusterAddresses");
            }
            return own.context();
        }

        @Override
        public LockContext connect(String address) {
            synchronized (DefaultLockClient.this) {
                requireOpen();
            }
            return attach(StandaloneTopology.connect(address, config, resources)).context();
        }

        @Override
        public Timer timer() {
            return resources.timer();
        }

        @Override
        public Ticker ticker() {
            return ticker;
        }

        @Override
        public HoldRegistry holds() {
            return holds;
        }
    }
}
