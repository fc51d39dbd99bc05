package io.latchkey.micrometer;

import io.latchkey.LockConfig;
import io.latchkey.LockEventListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a {@link io.latchkey.LockClient}'s lock events as Micrometer meters. Pass it to
 * {@link LockConfig.Builder#eventListener}:
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 * <tr><td>{@code latchkey.lock.acquire}</td><td>timer</td><td>{@code kind}, {@code outcome}</td>
 *     <td>each acquisition (re-entries too) and how long it waited; outcome {@code acquired},
 *     {@code timed_out}, {@code interrupted} or {@code failed}</td></tr>
 * <tr><td>{@code latchkey.lock.held}</td><td>long task timer</td><td>{@code kind}</td>
 *     <td>the holds now held and for how long, one task per hold</td></tr>
 * <tr><td>{@code latchkey.lock.waiting}</td><td>gauge</td><td>{@code kind}</td>
 *     <td>acquisitions under way (waiting, or on their way to Redis)</td></tr>
 * <tr><td>{@code latchkey.lease.renewal}</td><td>timer</td><td>{@code outcome}</td>
 *     <td>the watchdog's renewal round trips; outcome {@code renewed} or {@code failed}</td></tr>
 * <tr><td>{@code latchkey.lease.renewal.batch}</td><td>distribution summary</td><td></td>
 *     <td>how many holds each renewal round trip renewed</td></tr>
 * <tr><td>{@code latchkey.lease.lost}</td><td>counter</td><td></td>
 *     <td>holds whose lease was found lost</td></tr>
 * <tr><td>{@code latchkey.lock.handoff}</td><td>counter</td><td>{@code kind}</td>
 *     <td>holds passed between owners of the client without Redis</td></tr>
 * </table>
 *
 * <p>Lock names are not tags: an application that locks {@code orders:<id>} would make a meter
 * per order. {@link #withLockNames} adds a {@code name} tag to every meter of one lock, for
 * applications with a few fixed lock names; past a cap of distinct names (100 unless set) every
 * further name is tagged {@value #OTHER_NAMES}, so a mistake costs a warning, not the heap.
 *
 * <p>Thread-safe; each event costs a map lookup and the meter's own recording, never blocks.
 */
public final class MicrometerLockEvents implements LockEventListener {

    /** The {@code name} tag of every lock name past the cap. */
    public static final String OTHER_NAMES = "_other";
    /** The cap of {@link #withLockNames(MeterRegistry)}. */
    public static final int DEFAULT_MAX_LOCK_NAMES = 100;

    private static final Logger log = LoggerFactory.getLogger(MicrometerLockEvents.class);

    private final MeterRegistry registry;
    private final boolean nameTags;
    private final int maxNames;
    /** The names that have tags of their own: at most {@link #maxNames}. */
    private final Set<String> tagged = ConcurrentHashMap.newKeySet();
    /** Guarded by {@link #tagged}. */
    private boolean warned;
    private final Map<Tags, Timer> acquireTimers = new ConcurrentHashMap<>();
    private final Map<Tags, LongTaskTimer> heldTimers = new ConcurrentHashMap<>();
    private final Map<Tags, AtomicInteger> waiting = new ConcurrentHashMap<>();
    private final Map<Tags, Counter> handoffs = new ConcurrentHashMap<>();
    private final Map<Tags, Counter> lost = new ConcurrentHashMap<>();
    private final Map<HoldKey, LongTaskTimer.Sample> holds = new ConcurrentHashMap<>();
    private final Timer renewed;
    private final Timer renewalFailed;
    private final DistributionSummary renewalBatch;

    private MicrometerLockEvents(MeterRegistry registry, boolean nameTags, int maxNames) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.nameTags = nameTags;
        this.maxNames = maxNames;
        this.renewed = renewalTimer(RenewalOutcome.RENEWED);
        this.renewalFailed = renewalTimer(RenewalOutcome.FAILED);
        this.renewalBatch = DistributionSummary.builder("latchkey.lease.renewal.batch")
                .description("Holds renewed by one renewal round trip").baseUnit("holds").register(registry);
    }

    /**
     * The listener for most applications: lock names are not tags.
     *
     * @param registry where the meters go; not null
     * @return a listener whose meters are tagged by kind and outcome, not by lock name
     */
    public static MicrometerLockEvents of(MeterRegistry registry) {
        return new MicrometerLockEvents(registry, false, 0);
    }

    /**
     * Opt-in: every meter of a lock also gets a {@code name} tag, the lock's name, for the first
     * {@value #DEFAULT_MAX_LOCK_NAMES} names; see {@link #withLockNames(MeterRegistry, int)}.
     *
     * @param registry where the meters go; not null
     * @return a listener whose meters are also tagged by lock name
     */
    public static MicrometerLockEvents withLockNames(MeterRegistry registry) {
        return withLockNames(registry, DEFAULT_MAX_LOCK_NAMES);
    }

    /**
     * Opt-in: every meter of a lock also gets a {@code name} tag, the lock's name. Only for
     * applications whose lock names are few and fixed: each name makes meters of its own, which
     * are never removed. The first {@code maxNames} distinct names seen get tags of their own;
     * later ones share {@value #OTHER_NAMES}, and the first of them is logged at WARN.
     *
     * @param registry where the meters go; not null
     * @param maxNames how many names get tags of their own: at least 1
     * @return a listener whose meters are also tagged by lock name
     * @throws IllegalArgumentException if {@code maxNames < 1}
     */
    public static MicrometerLockEvents withLockNames(MeterRegistry registry, int maxNames) {
        if (maxNames < 1) {
            throw new IllegalArgumentException("maxNames must be at least 1: " + maxNames);
        }
        return new MicrometerLockEvents(registry, true, maxNames);
    }

    @Override
    public void acquireStarted(AcquireStarted event) {
        waitingCount(lockTags(event.kind(), event.lockName())).incrementAndGet();
    }

    @Override
    public void acquireEnded(AcquireEnded event) {
        Tags lock = lockTags(event.kind(), event.lockName());
        waitingCount(lock).decrementAndGet();
        Tags tags = lock.and("outcome", event.outcome().name().toLowerCase(Locale.ROOT));
        acquireTimers.computeIfAbsent(tags, t -> Timer.builder("latchkey.lock.acquire")
                .description("Lock acquisitions and how long they waited").tags(t).register(registry))
                .record(event.waited());
        if (event.outcome() == AcquireOutcome.ACQUIRED) {
            // A re-entry finds its hold's task already running.
            holds.computeIfAbsent(new HoldKey(event.lockName(), event.ownerId(), event.fencingToken()),
                    key -> heldTimers.computeIfAbsent(lock, t -> LongTaskTimer.builder("latchkey.lock.held")
                            .description("Locks held now, and for how long").tags(t).register(registry)).start());
        }
    }

    @Override
    public void released(Released event) {
        endHold(event.lockName(), event.ownerId(), event.fencingToken());
    }

    @Override
    public void leaseLost(LeaseLost event) {
        endHold(event.lockName(), event.ownerId(), event.fencingToken());
        Tags tags = nameTags ? Tags.of("name", nameTag(event.lockName())) : Tags.empty();
        lost.computeIfAbsent(tags, t -> Counter.builder("latchkey.lease.lost")
                .description("Holds whose lease was found lost").tags(t).register(registry)).increment();
    }

    @Override
    public void renewed(Renewal event) {
        (event.outcome() == RenewalOutcome.RENEWED ? renewed : renewalFailed).record(event.took());
        if (event.outcome() == RenewalOutcome.RENEWED) {
            renewalBatch.record(event.batchSize());
        }
    }

    @Override
    public void handedOff(HandedOff event) {
        handoffs.computeIfAbsent(lockTags(event.kind(), event.lockName()), t -> Counter.builder("latchkey.lock.handoff")
                .description("Holds passed between owners of one client without Redis").tags(t).register(registry))
                .increment();
    }

    private void endHold(String lockName, long ownerId, long token) {
        LongTaskTimer.Sample sample = holds.remove(new HoldKey(lockName, ownerId, token));
        if (sample != null) {
            sample.stop();
        }
    }

    private AtomicInteger waitingCount(Tags tags) {
        return waiting.computeIfAbsent(tags, t -> {
            AtomicInteger count = new AtomicInteger();
            // The map keeps the number strongly reachable: Micrometer's gauge holds it weakly.
            Gauge.builder("latchkey.lock.waiting", count, AtomicInteger::get)
                    .description("Lock acquisitions under way").tags(t).register(registry);
            return count;
        });
    }

    private Tags lockTags(String kind, String lockName) {
        Tags tags = Tags.of("kind", kind);
        return nameTags ? tags.and("name", nameTag(lockName)) : tags;
    }

    private String nameTag(String lockName) {
        if (tagged.contains(lockName)) {
            return lockName;
        }
        synchronized (tagged) {
            if (tagged.size() < maxNames) {
                tagged.add(lockName);
                return lockName;
            }
            if (!warned) {
                warned = true;
                log.warn("More than {} lock names were seen: meters of '{}' and every further name are tagged name={}; "
                        + "tag lock names only where they are few and fixed", maxNames, lockName, OTHER_NAMES);
            }
        }
        return OTHER_NAMES;
    }

    private Timer renewalTimer(RenewalOutcome outcome) {
        return Timer.builder("latchkey.lease.renewal").description("Watchdog renewal round trips")
                .tag("outcome", outcome.name().toLowerCase(Locale.ROOT)).register(registry);
    }

    @Override
    public String toString() {
        return "MicrometerLockEvents{" + registry.getClass().getSimpleName() + (nameTags ? ", with lock names" : "") + '}';
    }

    /** One hold: a re-entry has the same owner and token. */
    private record HoldKey(String lockName, long ownerId, long token) {
    }
}
