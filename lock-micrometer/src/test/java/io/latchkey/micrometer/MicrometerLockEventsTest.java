package io.latchkey.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.latchkey.LockEventListener.AcquireEnded;
import io.latchkey.LockEventListener.AcquireOutcome;
import io.latchkey.LockEventListener.AcquireStarted;
import io.latchkey.LockEventListener.LeaseLost;
import io.latchkey.LockEventListener.Released;
import io.latchkey.LockEventListener.Renewal;
import io.latchkey.LockEventListener.RenewalOutcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The meters each event moves, fed by hand: no Redis. */
class MicrometerLockEventsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void anAcquisitionIsTimedAndItsHoldRunsUntilReleasedOnceForAllReentries() {
        MicrometerLockEvents events = MicrometerLockEvents.of(registry);
        events.acquireStarted(new AcquireStarted("a", "plain", 1));
        assertEquals(1, registry.get("latchkey.lock.waiting").tag("kind", "plain").gauge().value());
        events.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ofMillis(5), AcquireOutcome.ACQUIRED, 9));
        events.acquireStarted(new AcquireStarted("a", "plain", 1));
        events.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ofMillis(1), AcquireOutcome.ACQUIRED, 9));
        assertEquals(0, registry.get("latchkey.lock.waiting").gauge().value());
        assertEquals(2, registry.get("latchkey.lock.acquire").tags("kind", "plain", "outcome", "acquired").timer().count());
        assertEquals(1, registry.get("latchkey.lock.held").longTaskTimer().activeTasks());
        events.released(new Released("a", "plain", 1, 9, Duration.ofMillis(10)));
        assertEquals(0, registry.get("latchkey.lock.held").longTaskTimer().activeTasks());
    }

    @Test
    void aLostLeaseEndsItsHoldAndIsCounted() {
        MicrometerLockEvents events = MicrometerLockEvents.of(registry);
        events.acquireEnded(new AcquireEnded("a", "fair", 1, Duration.ZERO, AcquireOutcome.ACQUIRED, 3));
        events.leaseLost(new LeaseLost("a", 1, 3, "gone"));
        assertEquals(0, registry.get("latchkey.lock.held").tag("kind", "fair").longTaskTimer().activeTasks());
        assertEquals(1, registry.get("latchkey.lease.lost").counter().count());
    }

    @Test
    void timeoutsAndRenewalsHaveTheirOwnOutcomes() {
        MicrometerLockEvents events = MicrometerLockEvents.of(registry);
        events.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ofMillis(200), AcquireOutcome.TIMED_OUT, 0));
        events.renewed(new Renewal(12, Duration.ofMillis(2), RenewalOutcome.RENEWED));
        events.renewed(new Renewal(3, Duration.ofMillis(3000), RenewalOutcome.FAILED));
        assertEquals(1, registry.get("latchkey.lock.acquire").tag("outcome", "timed_out").timer().count());
        assertNull(registry.find("latchkey.lock.held").longTaskTimer()); // no hold began
        assertEquals(1, registry.get("latchkey.lease.renewal").tag("outcome", "renewed").timer().count());
        assertEquals(1, registry.get("latchkey.lease.renewal").tag("outcome", "failed").timer().count());
        assertEquals(12, registry.get("latchkey.lease.renewal.batch").summary().totalAmount());
    }

    @Test
    void lockNamesAreTagsOnlyWhenAskedFor() {
        MicrometerLockEvents.of(registry).acquireEnded(
                new AcquireEnded("orders:1", "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));
        assertNull(registry.find("latchkey.lock.acquire").tagKeys("name").timer());
        SimpleMeterRegistry named = new SimpleMeterRegistry();
        MicrometerLockEvents.withLockNames(named).acquireEnded(
                new AcquireEnded("orders:1", "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));
        assertNotNull(named.find("latchkey.lock.acquire").tag("name", "orders:1").timer());
    }

    @Test
    void lockNameTagsStopAtTheCapAndLaterNamesShareOneTag() {
        // Before: 20,000 names made 60,003 meters, never removed (issue 27, finding 11).
        SimpleMeterRegistry named = new SimpleMeterRegistry();
        MicrometerLockEvents events = MicrometerLockEvents.withLockNames(named, 3);
        for (int i = 0; i < 2_000; i++) {
            events.acquireEnded(new AcquireEnded("orders:" + i, "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));
        }
        events.acquireEnded(new AcquireEnded("orders:1", "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));

        assertEquals(4, named.find("latchkey.lock.acquire").timers().size(), "3 names and the rest");
        assertEquals(2, named.find("latchkey.lock.acquire").tag("name", "orders:1").timer().count(), "a tagged name keeps its tag");
        assertEquals(1_997, named.find("latchkey.lock.acquire").tag("name", MicrometerLockEvents.OTHER_NAMES).timer().count());
        assertThrows(IllegalArgumentException.class, () -> MicrometerLockEvents.withLockNames(named, 0));
    }
}
