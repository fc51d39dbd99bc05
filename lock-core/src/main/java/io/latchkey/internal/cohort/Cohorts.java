package io.latchkey.internal.cohort;

import io.latchkey.LockConfig.LocalHandOff;
import io.latchkey.internal.lock.LockProtocol;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cohorts of one client, one per plain lock that its owners use now, so that every lock
 * object of one name shares one. An idle cohort (no Redis hold, no waiter) leaves; a call that
 * still had it finds it retired and looks again. Two cohorts of one lock may briefly coexist
 * after such a race: each has an owner id of its own in Redis, so Redis still lets only one of
 * them hold. Thread-safe.
 */
public final class Cohorts {

    /**
     * The cohorts' owner ids in Redis come from the bottom of the long range, which thread ids
     * never reach; applications that pass their own owner ids to the async methods must not use
     * ids below {@code Long.MIN_VALUE + 2^32}.
     */
    private final AtomicLong ids = new AtomicLong(Long.MIN_VALUE);
    private final Map<Object, Cohort> cohorts = new ConcurrentHashMap<>();
    private final LocalHandOff bounds;

    /** @param bounds the client's bounds on local hand-offs */
    public Cohorts(LocalHandOff bounds) {
        this.bounds = bounds;
    }

    /**
     * @param plain a plain lock of the client
     * @return the lock with local hand-off
     */
    public LockProtocol protocol(ReentrantLockProtocol plain) {
        return new CohortLockProtocol(plain, this);
    }

    Cohort of(ReentrantLockProtocol plain) {
        return cohorts.computeIfAbsent(plain.identity(), id -> new Cohort(this, id, plain, ids.incrementAndGet(), bounds));
    }

    void retire(Object identity, Cohort cohort) {
        cohorts.remove(identity, cohort);
    }

    /** @return the cohorts now active, for tests and diagnostics */
    public int size() {
        return cohorts.size();
    }
}
