package io.latchkey.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VerdictTest {

    @Test
    void theIntervalIsTheStudentTIntervalOfTheMean() {
        // mean 10, sample sd 1, n 3: half width t(0.975, 2) × 1 / √3 = 4.303 / 1.732 = 2.484
        Estimate estimate = Estimate.of(9, 10, 11);

        assertEquals(10, estimate.mean, 1e-9);
        assertEquals(2.484, estimate.halfWidth(), 0.001);
        assertTrue(estimate.bounded());
    }

    @Test
    void twoSamplesHaveAnInterval() {
        // t(0.975, 1) = 12.706; standard error 0.5
        assertEquals(6.353, Estimate.of(9, 10).halfWidth(), 0.001);
    }

    @Test
    void oneSampleHasNoIntervalAndNeverGivesAVerdict() {
        Estimate one = Estimate.of(5_000);
        Estimate far = Estimate.of(100, 101, 102);

        assertFalse(one.bounded());
        assertEquals("49.50 within noise", Verdict.compare(one, far, true));
        assertEquals("≥ 3.0 within noise", Verdict.atLeast(one, far, 3));
    }

    @Test
    void aDirectionOnlyWhereTheIntervalsDoNotOverlap() {
        Estimate fast = Estimate.of(300, 310, 320);
        Estimate slow = Estimate.of(100, 110, 120);
        Estimate wide = Estimate.of(50, 300, 550);

        assertEquals("2.82 faster", Verdict.compare(fast, slow, true));
        assertEquals("0.35 slower", Verdict.compare(slow, fast, true));
        assertEquals("1.03 within noise", Verdict.compare(fast, wide, true));
        // Waits: lower is better.
        assertEquals("0.35 better", Verdict.compare(slow, fast, false));
        assertEquals("2.82 worse", Verdict.compare(fast, slow, false));
    }

    @Test
    void aTargetIsMetOrMissedOnlyBeyondTheIntervals() {
        Estimate latchkey = Estimate.of(300, 310, 320);
        Estimate redisson = Estimate.of(99, 100, 101);

        // Worst case 310 - 24.8 over 100 + 2.5: about 2.78.
        assertEquals("≥ 2.5 met", Verdict.atLeast(latchkey, redisson, 2.5));
        // Best case 334.8 / 97.5: about 3.43.
        assertEquals("≥ 3.0 within noise", Verdict.atLeast(latchkey, redisson, 3));
        assertEquals("≥ 4.0 MISSED", Verdict.atLeast(latchkey, redisson, 4));
        assertEquals("≤ 0.20 MISSED", Verdict.atMost(redisson, latchkey, 0.2));
        assertEquals("≤ 0.40 met", Verdict.atMost(redisson, latchkey, 0.4));
        assertEquals("≤ 0.32 within noise", Verdict.atMost(redisson, latchkey, 0.32));
    }

    @Test
    void refusesNoSamplesAndNonFiniteOnes() {
        assertThrows(IllegalArgumentException.class, Estimate::of);
        assertThrows(IllegalArgumentException.class, () -> Estimate.of(1, Double.NaN));
    }
}
