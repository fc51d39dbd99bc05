package io.latchkey.internal.cohort;

import io.latchkey.LockConfig.LocalHandOff;
import io.latchkey.internal.lock.LockProtocol;
import io.latchkey.internal.lock.OwnerIds;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cohorts of one client, one per plain lock that its owners hold, wait for or try now, so
 * that every lock object of one name shares one, and none is kept for a name the client only
 * asks about. An idle cohort (no Redis hold, no waiter, no claim) leaves; a call that still had it
 * finds it retired and looks again. Two cohorts of one lock may briefly coexist after such a race:
 * each has an owner id of its own in Redis, so Redis still lets only one of them hold. Thread-safe.
 */
public final class Cohorts {

    /** The cohorts' owner ids in Redis, always among the client's reserved ones ({@link OwnerIds}). */
    private final AtomicLong ids = new AtomicLong();
    private final Map<Object, Cohort> cohorts = new ConcurrentHashMap<>();
    private final LocalHandOff bounds;
    private volatile boolean closed;

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

    /** @return the lock's cohort, made if there is none */
    Cohort of(ReentrantLockProtocol plain) {
        return cohorts.computeIfAbsent(plain.identity(), id -> {
            HandOffBudget budget = new HandOffBudget(bounds, plain.context().config().commandTimeout().toNanos());
            PlainLockRedis redis = new PlainLockRedis(plain, OwnerIds.reserved(ids.getAndIncrement()), budget.tokenBlock());
            Cohort cohort = new Cohort(this, id, redis, budget);
            if (closed) {
                cohort.close();
            }
            return cohort;
        });
    }

    /** @return the lock's cohort, or null if the client neither holds nor waits for it */
    Cohort existing(ReentrantLockProtocol plain) {
        return cohorts.get(plain.identity());
    }

    void retire(Object identity, Cohort cohort) {
        cohorts.remove(identity, cohort);
    }

    /** The client is closing: every cohort's tries fail from now on, and its waiters hear of it. */
    public void close() {
        closed = true;
        List.copyOf(cohorts.values()).forEach(Cohort::close);
    }

    /** @return the cohorts now active, for tests and diagnostics */
    public int size() {
        return cohorts.size();
    }
}
