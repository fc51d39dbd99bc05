package io.latchkey.spi;

import io.latchkey.internal.events.LockEvents;
import io.latchkey.spi.Ticker;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one client's owners, one per lock and owner, so that every lock object of one
 * name sees the same holds (a lock taken through one object may be released through another).
 * A hold leaves when it is over: released to its last level, or lost and its owner told.
 * Thread-safe.
 */
public final class HoldRegistry {

    private final Timer timer;
    private final Ticker ticker;
    private final LockEvents events;
    private final Map<Key, Hold> holds = new ConcurrentHashMap<>();
    /**
     * Per lock, the acquisitions of this client that wait for it (they joined its wake-ups); a
     * lock leaves when its last waiter does, so that nothing stays per name once no one waits.
     */
    private final Map<Object, Integer> waiting = new ConcurrentHashMap<>();

    /**
     * A registry that tells no events.
     *
     * @param timer the client's timer, which checks when leases run out
     * @param ticker the client's clock
     */
    public HoldRegistry(Timer timer, Ticker ticker) {
        this(timer, ticker, LockEvents.NONE);
    }

    /**
     * @param timer the client's timer, which checks when leases run out
     * @param ticker the client's clock
     * @param events where the client's lock events go: every kind's holds are recorded here, so
     *     every kind reaches them here
     */
    public HoldRegistry(Timer timer, Ticker ticker, LockEvents events) {
        this.timer = timer;
        this.ticker = ticker;
        this.events = events;
    }

    /** @return where the client's lock events go */
    public LockEvents events() {
        return events;
    }

    /**
     * @param lock what identifies the lock on this client: equal for every lock object of it
     * @param owner the owner id
     * @return the owner's hold, held or lost, or null if it has none
     */
    public @Nullable Hold find(Object lock, long owner) {
        return holds.get(new Key(lock, owner));
    }

    /**
     * Records a grant of a level with a fixed lease: one more level of the owner's hold if Redis
     * gave it the hold's token, else a new hold. A held hold that a grant with another token
     * replaces was lost without the client noticing, and is reported lost now.
     *
     * @param lock what identifies the lock on this client
     * @param lockName the lock's name, for messages
     * @param owner the owner id
     * @param token the token Redis answered the grant with
     * @param untilNanos the grant's send time plus its lease, by the client's ticker
     * @return the hold the grant belongs to; a lost one if the grant re-entered a hold the client
     *     gave up for lost meanwhile (its level is the lost hold's, and ends with it in Redis)
     */
    public Hold granted(Object lock, String lockName, long owner, long token, long untilNanos) {
        return granted(lock, lockName, "unnamed", owner, token, untilNanos, false);
    }

    /**
     * As {@link #granted(Object, String, long, long, long)}, for a lock of a named kind, with a
     * level that may have taken the watchdog lease.
     *
     * @param lock what identifies the lock on this client
     * @param lockName the lock's name, for messages
     * @param kind the lock's kind as events name it; a re-entry keeps the kind of the first grant
     * @param owner the owner id
     * @param token the token Redis answered the grant with
     * @param untilNanos the grant's send time plus its lease, by the client's ticker
     * @param watchdog true if the level took the watchdog lease
     * @return the hold the grant belongs to, as for {@link #granted(Object, String, long, long, long)}
     */
    public Hold granted(Object lock, String lockName, String kind, long owner, long token, long untilNanos,
                        boolean watchdog) {
        Key key = new Key(lock, owner);
        List<Hold> replaced = new ArrayList<>(1);
        Hold hold = holds.compute(key, (id, existing) -> {
            if (existing != null && existing.token() == token) {
                return existing;
            }
            if (existing != null) {
                replaced.add(existing);
            }
            return new Hold(this, id, lockName, kind, token, timer, ticker);
        });
        replaced.forEach(old -> old.lose("a later grant found it gone from Redis", false));
        // Given up for lost, even while its kind is still being told: the grant joins nothing.
        if (!hold.isGivenUp()) {
            hold.enter(untilNanos, watchdog);
        }
        return hold;
    }

    /**
     * The client is closing: every hold still held is lost, since nothing renews it any more and
     * its owner must not go on relying on it.
     */
    public void close() {
        List.copyOf(holds.values()).forEach(Hold::loseAtClose);
    }

    /**
     * An acquisition of this client starts to wait for a lock: counted in {@link #waiters} until
     * the returned action runs.
     *
     * @param lock what identifies the lock on this client
     * @return ends the wait's count; runs once however often it is called
     */
    public Runnable waiting(Object lock) {
        waiting.merge(lock, 1, Integer::sum);
        AtomicBoolean ended = new AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                waiting.computeIfPresent(lock, (id, count) -> count == 1 ? null : count - 1);
            }
        };
    }

    /**
     * @param hold a hold of this registry
     * @return how many acquisitions of this client wait for the hold's lock now
     */
    public int waiters(Hold hold) {
        return waiting.getOrDefault(hold.key().lock(), 0);
    }

    /**
     * @return the holds held now (neither released nor given up for lost), in no particular order;
     *     a snapshot, for diagnostics
     */
    public List<Hold> held() {
        return holds.values().stream().filter(Hold::isHeld).toList();
    }

    /** @return the client's clock, which the holds' times are read with */
    public Ticker ticker() {
        return ticker;
    }

    /** @return the number of holds this client knows of, for tests and diagnostics */
    public int size() {
        return holds.size();
    }

    void remove(Hold hold) {
        holds.remove(hold.key(), hold);
    }

    /**
     * Identifies a hold on this client.
     *
     * @param lock what identifies the lock on this client
     * @param owner the owner id
     */
    record Key(Object lock, long owner) {
    }
}
