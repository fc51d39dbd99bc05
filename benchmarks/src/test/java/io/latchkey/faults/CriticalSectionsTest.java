package io.latchkey.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The critical sections' mix, as the harness hands it to its workers and they draw from it. */
class CriticalSectionsTest {

    private static final long RENEWAL_MILLIS = 666;

    @Test
    void theWorkersArgumentReadsBackAsTheSameMix() {
        assertEquals(FaultOptions.LONG_RUN_SECTIONS, CriticalSections.parse(FaultOptions.LONG_RUN_SECTIONS.toString()));
        assertEquals(new CriticalSections(850, 120, 30), CriticalSections.parse(" 850, 120 ,30"));
    }

    @Test
    void sharesThatDoNotAddUpToAThousandAreRefusedWithTheValues() {
        IllegalArgumentException sum = assertThrows(IllegalArgumentException.class,
                () -> CriticalSections.parse("85,12,3"));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> new CriticalSections(1010, 0, -10));

        assertTrue(sum.getMessage().endsWith("85,12,3"), sum.getMessage());
        assertTrue(negative.getMessage().endsWith("1010,0,-10"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CriticalSections.parse("950,50"));
        assertThrows(IllegalArgumentException.class, () -> CriticalSections.parse("950,40,ten"));
    }

    @Test
    void drawsEachKindInItsShareAndTheLongOnesOutlastTheRenewalPeriod() {
        CriticalSections sections = new CriticalSections(945, 30, 25);
        SplittableRandom random = new SplittableRandom(42);
        int empty = 0;
        int shortOnes = 0;
        int longOnes = 0;
        for (int i = 0; i < 100_000; i++) {
            long millis = sections.nextMillis(random, RENEWAL_MILLIS);
            if (millis == 0) {
                empty++;
            } else if (millis <= 40) {
                shortOnes++;
            } else {
                assertTrue(millis > RENEWAL_MILLIS && millis < RENEWAL_MILLIS + 210, () -> millis + " ms");
                longOnes++;
            }
        }
        // 100,000 draws: each share within a few standard deviations of its expectation.
        assertEquals(94_500, empty, 400);
        assertEquals(3_000, shortOnes, 300);
        assertEquals(2_500, longOnes, 300);
    }
}
