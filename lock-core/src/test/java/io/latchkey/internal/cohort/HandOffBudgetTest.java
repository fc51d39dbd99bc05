package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LocalHandOff;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How far a cohort may pass its hold on (rules 1–3 and the token block), on numbers passed in:
 * a command timeout of 100 ms, bounds of 4 hand-offs and 50 ms, a lease of 30 s granted at 10 s.
 */
class HandOffBudgetTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long GRANTED_AT = 10_000 * MS;
    private static final long UNTIL = GRANTED_AT + 30_000 * MS;
    private static final LocalHandOff BOUNDS = new LocalHandOff(4, Duration.ofMillis(50));

    private final HandOffBudget budget = new HandOffBudget(BOUNDS, 100 * MS);

    private void held(long token, boolean anotherClientWaits) {
        budget.held(ScriptedCohortRedis.grantOf(token, UNTIL, anotherClientWaits), GRANTED_AT);
    }

    @Test
    void theTokenBlockHasOneTokenPerHandOffAndTheHoldsOwnButAtLeast1024() {
        assertEquals(1024, HandOffBudget.tokenBlock(BOUNDS));
        assertEquals(2001, HandOffBudget.tokenBlock(new LocalHandOff(2000, Duration.ofMillis(50))));
        assertEquals(2001, new HandOffBudget(new LocalHandOff(2000, Duration.ofMillis(50)), 100 * MS).tokenBlock());
    }

    @Test
    void aHoldIsPassedOnUntilItsTokenBlockRunsOut() {
        held(1025, false);
        assertEquals(1025, budget.redisToken());
        while (budget.token() < 2047) {
            budget.nextToken();
        }

        assertTrue(budget.mayPassOn(GRANTED_AT), "token 2048, the block's last, is still free");
        assertEquals(2048, budget.nextToken());
        assertFalse(budget.mayPassOn(GRANTED_AT), "the block of 1024 tokens is used up");
        assertEquals(1025, budget.redisToken(), "reports still name the hold by Redis's token");
    }

    @Test
    void whileAnotherClientWaitsTheHandOffsAreBoundedByCountAndTime() {
        held(1, true);
        budget.nextToken();
        budget.nextToken();
        budget.nextToken();
        assertTrue(budget.mayPassOn(GRANTED_AT + 49 * MS), "3 hand-offs in 49 ms");
        assertFalse(budget.mayPassOn(GRANTED_AT + 50 * MS), "50 ms since the grant");
        budget.nextToken();
        assertFalse(budget.mayPassOn(GRANTED_AT), "4 hand-offs");
    }

    @Test
    void withNoOtherClientWaitingNeitherBoundApplies() {
        held(1, false);
        budget.nextToken();
        budget.nextToken();
        budget.nextToken();
        budget.nextToken();

        assertTrue(budget.mayPassOn(GRANTED_AT + 1_000 * MS));
    }

    @Test
    void aNewHoldForgetsTheClientsMark() {
        budget.others().marked();

        held(1, false);

        assertFalse(budget.others().isMarked(), "Redis removed the mark as it granted the hold");
    }

    @Test
    void aHoldIsTakenOnlyWhileMoreThanTheCommandTimeoutOfItsLeaseIsLeft() {
        held(1, false);

        assertEquals(UNTIL, budget.confirmedUntilNanos());
        assertTrue(budget.mayTake(UNTIL - 101 * MS));
        assertFalse(budget.mayTake(UNTIL - 100 * MS));
        assertFalse(budget.mayPassOn(UNTIL - 100 * MS));
    }

    @Test
    void theWaitForTheHoldIsBoundedByItsLeaseAndIsAtLeastAMillisecond() {
        held(1, false);

        assertEquals(250, budget.heldMillis(UNTIL - 250 * MS));
        assertEquals(1, budget.heldMillis(UNTIL));
        assertEquals(1, budget.heldMillis(UNTIL + 5_000 * MS));
    }

    @Test
    void aDoubtStopsHandOffsUntilAConfirmationSentSinceTheFirstDoubt() {
        held(1, false);
        budget.doubt(GRANTED_AT + 10 * MS);
        budget.doubt(GRANTED_AT + 20 * MS);
        assertFalse(budget.mayTake(GRANTED_AT + 30 * MS));

        budget.confirmed(GRANTED_AT + 9 * MS, Long.MIN_VALUE);
        assertFalse(budget.mayTake(GRANTED_AT + 30 * MS), "sent before the doubt: it proves nothing");
        budget.confirmed(GRANTED_AT + 10 * MS, Long.MIN_VALUE);
        assertTrue(budget.mayTake(GRANTED_AT + 30 * MS), "sent as the first doubt came");
    }

    @Test
    void aConfirmationOnlyEverExtendsTheLease() {
        held(1, false);

        assertFalse(budget.confirmed(GRANTED_AT, Long.MIN_VALUE), "a read extends nothing");
        assertFalse(budget.confirmed(GRANTED_AT, UNTIL), "the same lease");
        assertFalse(budget.confirmed(GRANTED_AT, UNTIL - MS));
        assertEquals(UNTIL, budget.confirmedUntilNanos());
        assertTrue(budget.confirmed(GRANTED_AT, UNTIL + MS));
        assertEquals(UNTIL + MS, budget.confirmedUntilNanos());
    }
}
