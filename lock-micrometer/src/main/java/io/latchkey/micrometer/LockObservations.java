package io.latchkey.micrometer;

import io.latchkey.LockConfig;
import io.latchkey.LockEventListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Makes Micrometer Observations of a {@link io.latchkey.LockClient}'s lock events, so that lock
 * waits and holds appear in traces. Pass it to {@link LockConfig.Builder#eventListener} (with
 * {@link MicrometerLockEvents} too, through a listener that tells both):
 *
 * <table>
 * <caption>Observations</caption>
 * <tr><th>name</th><th>from – to</th><th>low-cardinality</th><th>high-cardinality</th></tr>
 * <tr><td>{@value DefaultLockAcquireConvention#NAME}</td><td>an acquisition's start – its end
 *     (re-entries too)</td><td>{@code kind}, {@code outcome}: {@code acquired}, {@code timed_out},
 *     {@code interrupted}, {@code failed}</td><td>{@code name}, if opted in</td></tr>
 * <tr><td>{@value DefaultLockHoldConvention#NAME}</td><td>the grant that began a hold – its last
 *     release or its lost lease</td><td>{@code kind}, {@code outcome}: {@code released},
 *     {@code lost}</td><td>{@code name}, if opted in</td></tr>
 * </table>
 *
 * <p>Observations are made with {@code Observation.createNotStarted(custom, default, context, registry)},
 * so the registry's {@code ObservationPredicate}s decide whether each is made at all and a
 * {@code GlobalObservationConvention} for {@link LockAcquireContext} or {@link LockHoldContext}
 * applies where no convention was passed here.
 *
 * <p><b>Parents.</b> An acquisition's observation has the registry's current observation (an HTTP
 * request's, say) as its parent, as Micrometer gives every observation made while one is current:
 * Latchkey tells an acquisition's start on the thread that asked for the lock, so the caller's.
 * Its end, and the hold's start, are often told on one of Latchkey's I/O threads, where the
 * caller's observation is not current; so the hold is given the parent its acquisition had
 * (it is the acquisition's sibling, not its child), and is never made a child of whatever is
 * current on the thread that tells the grant.
 *
 * <p><b>Matching.</b> An acquisition's end is matched to its start by lock name, kind and owner;
 * a hold's end (released or lost) to its start by lock name, owner and fencing token, so a
 * re-entry's grant, which carries its hold's token, starts no second hold. Two acquisitions of
 * one lock by one owner at once (async calls with one owner id) are matched first-come
 * first-served: the events do not say which ended.
 *
 * <p><b>Bounded.</b> The client ends every acquisition it starts, and every hold (a client
 * closed while holding tells each hold's lease as lost), so the observations under way are those
 * that run now. Should a start still find no end (an event lost before it reached this listener),
 * at most {@code maxOpen} acquisitions and as many holds are kept: past that, new ones are not
 * observed, and the first is logged at WARN.
 *
 * <p>Thread-safe; each event costs a map update and the observation's own handlers, never blocks
 * (handlers such as a tracer's run on the thread that tells the event, and must not block either).
 */
public final class LockObservations implements LockEventListener {

    /** How many acquisitions, and how many holds, are observed at once unless set. */
    public static final int DEFAULT_MAX_OPEN = 10_000;

    private static final Logger log = LoggerFactory.getLogger(LockObservations.class);
    private static final LockAcquireConvention DEFAULT_ACQUIRE = new DefaultLockAcquireConvention();
    private static final LockHoldConvention DEFAULT_HOLD = new DefaultLockHoldConvention();

    private final ObservationRegistry registry;
    private final @Nullable LockAcquireConvention acquireConvention;
    private final @Nullable LockHoldConvention holdConvention;
    private final boolean lockNames;
    private final int maxOpen;
    /** Per lock, kind and owner, its acquisitions under way, oldest first; each deque touched only inside the map's compute. */
    private final Map<AcquireKey, ArrayDeque<Waiting>> acquisitions = new ConcurrentHashMap<>();
    private final AtomicInteger acquisitionCount = new AtomicInteger();
    private final Map<HoldKey, OpenHold> holds = new ConcurrentHashMap<>();
    private final AtomicInteger holdCount = new AtomicInteger();
    private final AtomicBoolean warned = new AtomicBoolean();

    private LockObservations(Builder builder) {
        this.registry = builder.registry;
        this.acquireConvention = builder.acquireConvention;
        this.holdConvention = builder.holdConvention;
        this.lockNames = builder.lockNames;
        this.maxOpen = builder.maxOpen;
    }

    /**
     * The listener for most applications: the default conventions (unless the registry has global
     * ones), and no lock names on the observations.
     *
     * @param registry where the observations go; not null
     * @return a listener that observes acquisitions and holds
     */
    public static LockObservations of(ObservationRegistry registry) {
        return builder(registry).build();
    }

    /**
     * A listener with conventions of its own, lock names on traces, or another bound.
     *
     * @param registry where the observations go; not null
     * @return a builder of a listener
     */
    public static Builder builder(ObservationRegistry registry) {
        return new Builder(registry);
    }

    @Override
    public void acquireStarted(AcquireStarted event) {
        if (registry.isNoop()) {
            return;
        }
        if (acquisitionCount.incrementAndGet() > maxOpen) {
            acquisitionCount.decrementAndGet();
            warnFull("acquisitions", event.lockName());
            return;
        }
        boolean stored = false;
        try {
            // Read here, on the thread that asked for the lock: the parent of the hold to come too.
            @Nullable Observation parent = registry.getCurrentObservation();
            LockAcquireContext context = new LockAcquireContext(event.lockName(), event.kind(), event.ownerId(), lockNames);
            Observation observation = Observation.createNotStarted(acquireConvention, DEFAULT_ACQUIRE, () -> context, registry);
            observation.start();
            // Kept even when the observation is a no-op (a predicate said no): the hold needs the parent.
            Waiting waiting = new Waiting(observation, context, parent);
            // The end cannot be told before this returns: the client tells it once a Redis call
            // started after the start has answered.
            acquisitions.compute(new AcquireKey(event.lockName(), event.kind(), event.ownerId()), (key, queue) -> {
                ArrayDeque<Waiting> open = queue == null ? new ArrayDeque<>(1) : queue;
                open.addLast(waiting);
                return open;
            });
            stored = true;
        } finally {
            if (!stored) {
                acquisitionCount.decrementAndGet();
            }
        }
    }

    @Override
    public void acquireEnded(AcquireEnded event) {
        Waiting waiting = takeWaiting(new AcquireKey(event.lockName(), event.kind(), event.ownerId()));
        try {
            if (waiting != null) {
                acquisitionCount.decrementAndGet();
                waiting.context.setOutcome(event.outcome());
                waiting.observation.stop();
            }
        } finally {
            // Also when a handler threw at the acquisition's stop: the hold is another observation.
            if (event.outcome() == AcquireOutcome.ACQUIRED && !registry.isNoop()) {
                startHold(event, waiting == null ? null : waiting.parent);
            }
        }
    }

    @Override
    public void released(Released event) {
        endHold(new HoldKey(event.lockName(), event.ownerId(), event.fencingToken()), LockHoldContext.Ending.RELEASED);
    }

    @Override
    public void leaseLost(LeaseLost event) {
        endHold(new HoldKey(event.lockName(), event.ownerId(), event.fencingToken()), LockHoldContext.Ending.LOST);
    }

    /** @return how many acquisitions and holds are observed now: for tests */
    int open() {
        return acquisitionCount.get() + holdCount.get();
    }

    private Waiting takeWaiting(AcquireKey key) {
        Waiting[] taken = new Waiting[1];
        acquisitions.computeIfPresent(key, (k, queue) -> {
            taken[0] = queue.pollFirst();
            return queue.isEmpty() ? null : queue;
        });
        return taken[0];
    }

    private void startHold(AcquireEnded event, @Nullable Observation parent) {
        HoldKey key = new HoldKey(event.lockName(), event.ownerId(), event.fencingToken());
        if (holds.containsKey(key)) {
            return; // a re-entry: its hold is observed already
        }
        if (holdCount.incrementAndGet() > maxOpen) {
            holdCount.decrementAndGet();
            warnFull("holds", event.lockName());
            return;
        }
        OpenHold hold = new OpenHold(new LockHoldContext(event.lockName(), event.kind(), event.ownerId(),
                event.fencingToken(), lockNames));
        if (holds.putIfAbsent(key, hold) != null) {
            holdCount.decrementAndGet();
            return; // two grants of one hold told at once: the other started it
        }
        try {
            hold.start(parent);
        } catch (RuntimeException | LinkageError e) {
            // A handler threw at the start: nothing to stop later.
            if (holds.remove(key, hold)) {
                holdCount.decrementAndGet();
            }
            throw e;
        }
    }

    private void endHold(HoldKey key, LockHoldContext.Ending ending) {
        OpenHold hold = holds.remove(key);
        if (hold != null) {
            holdCount.decrementAndGet();
            hold.end(ending);
        }
    }

    private void warnFull(String what, String lockName) {
        if (warned.compareAndSet(false, true)) {
            log.warn("{} {} are observed already: '{}' and further ones past that bound are not; starts without an end "
                    + "(events lost before they reached this listener?) may have filled it", maxOpen, what, lockName);
        }
    }

    @Override
    public String toString() {
        return "LockObservations{" + registry.getClass().getSimpleName() + (lockNames ? ", with lock names" : "") + '}';
    }

    /** Builds a {@link LockObservations}; not thread-safe, as builders are not. */
    public static final class Builder {

        private final ObservationRegistry registry;
        private @Nullable LockAcquireConvention acquireConvention;
        private @Nullable LockHoldConvention holdConvention;
        private boolean lockNames;
        private int maxOpen = DEFAULT_MAX_OPEN;

        private Builder(ObservationRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * The convention of every acquisition's observation, in place of a global one or the
         * {@link DefaultLockAcquireConvention default}.
         *
         * @param convention the convention; null for the registry's global one or else the default
         * @return this builder
         */
        public Builder acquireConvention(@Nullable LockAcquireConvention convention) {
            this.acquireConvention = convention;
            return this;
        }

        /**
         * The convention of every hold's observation, in place of a global one or the
         * {@link DefaultLockHoldConvention default}.
         *
         * @param convention the convention; null for the registry's global one or else the default
         * @return this builder
         */
        public Builder holdConvention(@Nullable LockHoldConvention convention) {
            this.holdConvention = convention;
            return this;
        }

        /**
         * Opt-in: the default conventions add the lock's name as the high-cardinality key value
         * {@code name}, which goes on traces but never on meters. Off by default: lock names may
         * hold order or customer ids.
         *
         * @param lockNames whether the lock's name goes on traces
         * @return this builder
         */
        public Builder lockNames(boolean lockNames) {
            this.lockNames = lockNames;
            return this;
        }

        /**
         * How many acquisitions, and how many holds, are observed at once; past that, new ones
         * are not (see "Bounded" above).
         *
         * @param maxOpen at least 1; {@value LockObservations#DEFAULT_MAX_OPEN} unless set
         * @return this builder
         * @throws IllegalArgumentException if {@code maxOpen < 1}
         */
        public Builder maxOpen(int maxOpen) {
            if (maxOpen < 1) {
                throw new IllegalArgumentException("maxOpen must be at least 1: " + maxOpen);
            }
            this.maxOpen = maxOpen;
            return this;
        }

        /** {@return the listener} */
        public LockObservations build() {
            return new LockObservations(this);
        }
    }

    /** An acquisition under way: its observation (perhaps a no-op), and the parent its hold will get. */
    private record Waiting(Observation observation, LockAcquireContext context, @Nullable Observation parent) {
    }

    /** An acquisition's identity as its events tell it. */
    private record AcquireKey(String lockName, String kind, long ownerId) {
    }

    /** One hold: a re-entry has the same owner and token. */
    private record HoldKey(String lockName, long ownerId, long token) {
    }

    /**
     * A hold's observation, entered in the map before it starts, so that a second grant of the
     * same hold told at the same time starts none; its monitor orders the start before the end
     * should the end be told on another thread meanwhile.
     */
    private final class OpenHold {

        private final LockHoldContext context;
        /** Guarded by this: null until started. */
        private @Nullable Observation observation;
        /** Guarded by this: set by an end told before the start was done. */
        private LockHoldContext.@Nullable Ending endedEarly;

        OpenHold(LockHoldContext context) {
            this.context = context;
        }

        synchronized void start(@Nullable Observation parent) {
            Observation started = Observation.createNotStarted(holdConvention, DEFAULT_HOLD, () -> context, registry);
            // Set, not left to Micrometer: it would take whatever is current on the telling thread.
            started.parentObservation(parent);
            started.start();
            observation = started;
            if (endedEarly != null) {
                stop(started, endedEarly);
            }
        }

        synchronized void end(LockHoldContext.Ending ending) {
            if (observation == null) {
                endedEarly = ending;
            } else {
                stop(observation, ending);
            }
        }

        private void stop(Observation started, LockHoldContext.Ending ending) {
            context.setEnding(ending);
            started.stop();
        }
    }
}
