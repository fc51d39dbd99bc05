package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LocalHandOff;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client's cohort of one lock, below Redis: the client's {@link Cohorts} over a
 * {@link ScriptedCohortRedis}, its holds, a manual timer, and the steps of the owners' acquire
 * loops, one call each (try, join the waiters, park, release, leave), so that a test spells out
 * the interleaving it checks. Hand-offs are bounded at 4 per Redis hold and 50 ms. Not
 * thread-safe: one test thread drives it.
 */
final class CohortBench {

    static final String LOCK = "orders";
    static final LocalHandOff BOUNDS = new LocalHandOff(4, Duration.ofMillis(50));
    static final long FOREVER = TimeUnit.DAYS.toNanos(1);

    final ManualTimer timer = ManualTimer.manual();
    final ScriptedCohortRedis redis = new ScriptedCohortRedis(timer);
    final Cohorts cohorts = new Cohorts(BOUNDS);
    final HoldRegistry holds = new HoldRegistry(timer, timer.ticker());
    final Cohorts.RedisSides sides = (self, tokenBlock) -> redis;

    /** @return the lock's cohort, made if there is none */
    Cohort cohort() {
        return cohorts.of(LOCK, sides);
    }

    /** @return the lock's cohort, or null if the client keeps none */
    Cohort existing() {
        return cohorts.existing(LOCK);
    }

    CompletableFuture<TryResult> tryFor(long owner) {
        return tryAcquire(owner, ScriptedCohortRedis.WATCHDOG, 0);
    }

    CompletableFuture<TryResult> tryFixed(long owner) {
        return tryAcquire(owner, ScriptedCohortRedis.FIXED, 0);
    }

    /** One try, as {@link CohortLockProtocol#tryAcquire} makes it: a retired cohort is looked up again. */
    CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        while (true) {
            CompletableFuture<TryResult> tried = cohort().tryAcquire(owner, lease, heldToken);
            if (tried != null) {
                return tried;
            }
        }
    }

    /** A try that the cohort answers "busy" at once, without Redis. */
    TryResult toldBusy(long owner) {
        CompletableFuture<TryResult> tried = tryFor(owner);
        assertTrue(tried.isDone(), "answered locally");
        assertFalse(tried.join().acquired());
        return tried.join();
    }

    /** Records an acquired try's grant as the acquire loop does, and starts the owner's hold. */
    Hold record(long owner, CompletableFuture<TryResult> tried) {
        assertTrue(tried.isDone(), "answered");
        TryResult result = tried.join();
        assertTrue(result.acquired(), "acquired");
        TryResult.Grant grant = result.grant();
        Hold hold = holds.granted(LOCK, LOCK, owner, grant.fencingToken(), grant.confirmedUntilNanos());
        grant.start(hold);
        return hold;
    }

    /** The owner takes the lock in Redis for the cohort: its try, granted a hold with {@code token}. */
    Hold takeInRedis(long owner, long token) {
        CompletableFuture<TryResult> tried = tryFor(owner);
        redis.grant(token);
        return record(owner, tried);
    }

    /**
     * The owner's attempt joins the lock's waiters, as it does once subscribed. A first waiter's
     * question whether Redis still has the cohort's hold ({@link #joinAsking}) is taken off
     * {@code redis.holdChecks} unanswered: it changes nothing until Redis answers.
     */
    Waiter join(long owner) {
        int asked = redis.holdChecks.size();
        Waiter waiter = joinAsking(owner);
        if (redis.holdChecks.size() > asked) {
            redis.holdChecks.removeLast();
        }
        return waiter;
    }

    /** As {@link #join}, with a first waiter's question left in {@code redis.holdChecks}. */
    Waiter joinAsking(long owner) {
        ScriptedChannel channel = new ScriptedChannel();
        return new Waiter((CohortWakeups) cohorts.joined(LOCK, sides, channel, owner), channel);
    }

    /** The owner releases one level, as the facade does: in the cohort, then in its hold. */
    CompletableFuture<Void> release(long owner) {
        CompletableFuture<Void> released = cohorts.release(LOCK, owner);
        Hold hold = holds.find(LOCK, owner);
        if (hold != null && hold.isHeld()) {
            hold.leave();
        }
        return released;
    }

    /** The owner's attempt left without the lock. */
    void attemptLeft(long owner) {
        cohorts.attemptLeft(LOCK, owner);
    }

    /**
     * A local hand-off as the acquire loops make it: {@code to} is told busy and joins the
     * waiters, {@code from} releases, {@code to} tries again, takes the hold and stops waiting.
     */
    Hold handOff(long from, long to) {
        toldBusy(to);
        Waiter waiter = join(to);
        CompletableFuture<Void> parked = waiter.park();
        release(from);
        assertTrue(parked.isDone(), "the release signalled the waiter");
        Hold hold = record(to, tryFor(to));
        waiter.close();
        return hold;
    }

    /** One attempt's wake-ups on the cohort lock, and the channel beneath them. */
    record Waiter(CohortWakeups wakeups, ScriptedChannel channel) {

        /** @return a wait from the sequence seen now, which no timeout ends */
        CompletableFuture<Void> park() {
            return wakeups.await(wakeups.sequence(), FOREVER);
        }

        void close() {
            wakeups.close();
        }
    }
}
