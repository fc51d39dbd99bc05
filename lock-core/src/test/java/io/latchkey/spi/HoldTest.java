package io.latchkey.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockEventListener;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.internal.time.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The client's record of holds, on a manual clock: when a lease counts as lost, and what a loss does. */
class HoldTest {

    private static final String LOCK = "orders";
    private static final long OWNER = 7;
    private static final long LEASE = TimeUnit.SECONDS.toNanos(30);

    private final ManualTimer timer = ManualTimer.manual();
    private final HoldRegistry registry = new HoldRegistry(timer, timer.ticker());

    private long now() {
        return timer.ticker().read();
    }

    private Hold grant(long token) {
        return registry.granted(LOCK, LOCK, OWNER, token, now() + LEASE);
    }

    @Test
    void aLeaseThatNobodyConfirmsAgainIsLostWhenItRunsOutAndNotBefore() {
        Hold hold = grant(1);
        List<Boolean> handled = new ArrayList<>();
        hold.onLoss((lost, mayRemain) -> handled.add(mayRemain));

        timer.advance(Duration.ofSeconds(29));
        assertTrue(hold.isHeld());
        assertFalse(hold.lost().isDone());

        timer.advance(Duration.ofSeconds(1));
        assertTrue(hold.lost().isDone(), "lost at the end of the lease as confirmed");
        assertFalse(hold.isHeld());
        assertEquals(List.of(true), handled, "Redis may still have it: the kind ends it there");
        assertTrue(hold.lossReason().contains("ran out"), hold.lossReason());
    }

    @Test
    void eachConfirmationMovesTheEndOfTheLeaseWithOneCheckPending() {
        Hold hold = grant(1);
        for (int round = 0; round < 10; round++) {
            timer.advance(Duration.ofSeconds(10));
            hold.confirm(now() + LEASE);
            assertTrue(timer.pending() <= 1, "one check per hold, however often it is confirmed");
        }
        timer.advance(Duration.ofSeconds(29));
        assertTrue(hold.isHeld());
        timer.advance(Duration.ofSeconds(1));
        assertTrue(hold.isLost());
    }

    @Test
    void anEarlierConfirmationNeverShortensTheLease() {
        Hold hold = grant(1);
        hold.confirm(now() + TimeUnit.SECONDS.toNanos(1));
        timer.advance(Duration.ofSeconds(29));
        assertTrue(hold.isHeld());
    }

    @Test
    void aLossIsReportedOnceAndTheFirstReasonStays() {
        Hold hold = grant(1);
        List<Boolean> handled = new ArrayList<>();
        hold.onLoss((lost, mayRemain) -> handled.add(mayRemain));

        hold.lose("a renewal found it gone from Redis", false);
        hold.lose("something else", true);
        timer.advance(Duration.ofMinutes(1));

        assertEquals(List.of(false), handled);
        assertEquals("a renewal found it gone from Redis", hold.lossReason());
        assertEquals(0, timer.pending(), "a lost hold is no longer watched");
    }

    @Test
    void theLastLeaveEndsTheHoldWithoutALossAndFreesTheOwnersPlace() {
        Hold hold = grant(1);
        assertSame(hold, grant(1), "a grant with the hold's token is a re-entry");

        assertFalse(hold.leave());
        assertTrue(hold.isHeld());
        assertTrue(hold.leave());

        assertFalse(hold.isHeld());
        assertNull(registry.find(LOCK, OWNER));
        timer.advance(Duration.ofMinutes(1));
        assertFalse(hold.lost().isDone(), "a released hold is never reported lost");
    }

    @Test
    void aGrantWithAnotherTokenIsANewHoldAndTheOldOneWasLost() {
        Hold old = grant(1);
        Hold fresh = grant(2);

        assertNotSame(old, fresh);
        assertTrue(old.isLost());
        assertTrue(fresh.isHeld());
        assertSame(fresh, registry.find(LOCK, OWNER));
    }

    @Test
    void aGrantThatReenteredAHoldGivenUpMeanwhileBelongsToTheLostHold() {
        Hold hold = grant(1);
        hold.lose("its lease ran out", true);

        Hold again = grant(1);

        assertSame(hold, again);
        assertTrue(again.isLost());
    }

    @Test
    void aLostHoldStaysTheOwnersUntilEndedSoThatItsNextCallsSeeTheLoss() {
        Hold hold = grant(1);
        hold.lose("a renewal found it gone from Redis", false);
        assertSame(hold, registry.find(LOCK, OWNER));

        hold.end();

        assertNull(registry.find(LOCK, OWNER));
    }

    @Test
    void closingTheClientLosesEveryHoldStillHeldWithoutEndingItInRedis() {
        Hold hold = grant(1);
        List<Boolean> handled = new ArrayList<>();
        hold.onLoss((lost, mayRemain) -> handled.add(mayRemain));

        registry.close();

        assertTrue(hold.lost().isDone());
        assertEquals(List.of(false), handled);
    }

    @Test
    void aLeaseCountsAsConfirmedUpToItsEndExclusive() {
        Hold hold = grant(1);

        assertTrue(hold.confirmedAt(now() + LEASE - 1));
        assertFalse(hold.confirmedAt(now() + LEASE));
    }

    @Test
    void aHoldNeverConfirmedIsNotConfirmedAtAnyTime() {
        Hold hold = new Hold(registry, new HoldRegistry.Key(LOCK, OWNER), LOCK, "plain", 1, timer, timer.ticker());

        assertFalse(hold.confirmedAt(now()));
        assertFalse(hold.confirmedAt(Long.MIN_VALUE));
        assertEquals(0, hold.leaseLeftNanos(now()));
    }

    @Test
    void theLeaseLeftIsTheConfirmedLeaseFromNowAndNeverNegative() {
        Hold hold = registry.granted(LOCK, LOCK, "fair", OWNER, 1, now() + LEASE, false);

        assertEquals("fair", hold.kind());
        assertEquals(LEASE, hold.leaseLeftNanos(now()));
        assertEquals(LEASE / 2, hold.leaseLeftNanos(now() + LEASE / 2));
        assertEquals(0, hold.leaseLeftNanos(now() + LEASE + 1));
    }

    @Test
    void onlyHeldHoldsAreListedAndWaitersAreCountedPerLockUntilEachEnds() {
        Hold held = registry.granted(LOCK, LOCK, OWNER, 1, now() + LEASE);
        Hold lost = registry.granted("other", "other", OWNER, 2, now() + LEASE);
        lost.lose("a test lost it", false);
        assertEquals(List.of(held), registry.held());

        Runnable first = registry.waiting(LOCK);
        Runnable second = registry.waiting(LOCK);
        assertEquals(2, registry.waiters(held));
        first.run();
        first.run(); // once however often it is called
        assertEquals(1, registry.waiters(held));
        second.run();
        assertEquals(0, registry.waiters(held));
    }

    @Test
    void aGrantAtANegativeTickerReadingIsConfirmedAsAnyOther() {
        ManualTimer early = ManualTimer.manual(new ManualTicker(-TimeUnit.HOURS.toNanos(1)));
        HoldRegistry holds = new HoldRegistry(early, early.ticker());
        long start = early.ticker().read();

        Hold hold = holds.granted(LOCK, LOCK, OWNER, 1, start + LEASE);

        assertTrue(hold.confirmedAt(start), "any long is a valid ticker reading");
        early.advance(Duration.ofSeconds(30));
        assertTrue(hold.isLost(), "lost at the end of its lease");
    }

    @Test
    void anEarlierConfirmationLeavesTheConfirmedLeaseAsItWas() {
        Hold hold = grant(1);

        hold.confirm(now() + TimeUnit.SECONDS.toNanos(1));

        assertTrue(hold.confirmedAt(now() + TimeUnit.SECONDS.toNanos(2)));
    }

    @Test
    void aLostHoldCancelsItsLeaseCheckAtOnce() {
        Hold hold = grant(1);

        hold.lose("a renewal found it gone from Redis", false);

        assertEquals(0, timer.pending());
    }

    @Test
    void theLastLeaveCancelsTheLeaseCheck() {
        Hold hold = grant(1);

        hold.leave();

        assertEquals(0, timer.pending());
    }

    @Test
    void aLossIsToldToTheClientsListener() {
        List<LockEventListener.LeaseLost> told = new ArrayList<>();
        HoldRegistry withEvents = new HoldRegistry(timer, timer.ticker(), LockEvents.of(new LockEventListener() {
            @Override
            public void leaseLost(LockEventListener.LeaseLost event) {
                told.add(event);
            }
        }));
        Hold hold = withEvents.granted(LOCK, LOCK, OWNER, 5, now() + LEASE);

        hold.lose("a renewal found it gone from Redis", false);

        assertEquals(List.of(new LockEventListener.LeaseLost(LOCK, OWNER, 5, "a renewal found it gone from Redis")), told);
    }

    @Test
    void aHoldKnowsItsOwnerLockTokenAndStart() {
        timer.advance(Duration.ofSeconds(3));

        Hold hold = grant(9);

        assertEquals(OWNER, hold.owner());
        assertEquals(LOCK, hold.lockName());
        assertEquals(9, hold.token());
        assertEquals(TimeUnit.SECONDS.toNanos(3), hold.startedNanos());
    }

    @Test
    void theNoticeShowsTheLossAndCallersCannotCompleteIt() {
        Hold hold = grant(1);

        hold.notice().complete(null);
        assertFalse(hold.isLost(), "a caller completing its notice changes nothing");

        Hold other = grant(2);
        assertFalse(other.notice().isDone());
        other.lose("a renewal found it gone from Redis", false);
        assertTrue(other.notice().isDone());
    }

    @Test
    void theRegistryCountsTheHoldsUntilTheyAreOver() {
        assertEquals(0, registry.size());
        Hold hold = grant(1);
        assertEquals(1, registry.size());

        hold.leave();

        assertEquals(0, registry.size());
    }

    /** A watchdog renewal as a hold sees it: counts its starts, active until cancelled. */
    private static final class Renewals implements java.util.function.Supplier<LeaseRegistration> {
        int started;
        int cancelled;
        boolean active;

        @Override
        public LeaseRegistration get() {
            started++;
            active = true;
            return new LeaseRegistration() {
                @Override
                public boolean isActive() {
                    return active;
                }

                @Override
                public void cancel() {
                    if (active) {
                        cancelled++;
                        active = false;
                    }
                }
            };
        }
    }

    private Hold grant(boolean watchdog, Renewals renewals) {
        Hold hold = registry.granted(LOCK, LOCK, "plain", OWNER, 1, now() + LEASE, watchdog);
        hold.renewWith(renewals);
        return hold;
    }

    @Test
    void aHoldIsRenewedExactlyWhileALevelThatTookTheWatchdogLeaseIsLeft() {
        Renewals renewals = new Renewals();
        Hold hold = grant(false, renewals);
        assertFalse(hold.renewed());
        assertEquals(0, renewals.started, "a fixed lease starts nothing");

        grant(true, renewals);
        grant(false, renewals);
        grant(true, renewals);
        assertEquals(1, renewals.started, "one renewal however many watchdog levels");

        hold.releasing(); // the innermost watchdog level
        assertTrue(hold.renewed(), "another watchdog level is left");
        hold.releasing(); // the fixed re-entry
        assertTrue(hold.renewed());
        assertEquals(0, renewals.cancelled);
        hold.releasing(); // the last watchdog level: stops before Redis answers
        assertFalse(hold.renewed());
        assertEquals(1, renewals.cancelled);

        assertFalse(hold.leave());
        assertFalse(hold.leave());
        assertFalse(hold.leave());
        assertTrue(hold.isHeld(), "the fixed level underneath stays");
        assertTrue(hold.leave());
        assertEquals(1, renewals.started);
    }

    @Test
    void aWatchdogReEntryAfterTheLastWatchdogLevelLeftStartsANewRenewal() {
        Renewals renewals = new Renewals();
        Hold hold = grant(true, renewals);
        hold.releasing();
        grant(true, renewals);

        assertEquals(2, renewals.started);
        assertEquals(1, renewals.cancelled);
        assertTrue(renewals.active);
        assertFalse(hold.leave(), "the first release answered; the re-entry holds");
        assertTrue(hold.renewed());
    }

    @Test
    void aRenewalThatEndedWithoutTheHoldIsStartedAgainByTheNextGrant() {
        Renewals renewals = new Renewals();
        grant(true, renewals);
        renewals.active = false; // e.g. cancelled by whoever releases the field in Redis

        grant(false, renewals);

        assertEquals(2, renewals.started);
    }

    @Test
    void aLostOrEndedHoldStopsItsRenewalAndStartsNoOther() {
        Renewals renewals = new Renewals();
        Hold hold = grant(true, renewals);

        hold.lose("a test lost it", true);
        assertEquals(1, renewals.cancelled);
        assertFalse(hold.renewed());
        hold.renewWith(renewals);
        assertEquals(1, renewals.started);

        hold.end();
        Hold next = grant(true, renewals);
        next.end();
        assertEquals(2, renewals.cancelled);
    }
}
