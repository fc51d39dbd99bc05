package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** The second half of {@link CohortSimulationTest}'s seeds, in the other test JVM. */
class CohortSimulationSecondHalfTest {

    @Test
    void everyScheduleOfTheSecondHalfKeepsTheInvariants() {
        assumeTrue(Long.getLong("latchkey.simulation.seed") == null, "one seed is replayed by CohortSimulationTest");
        CohortSimulationTest.explore(CohortSimulationTest.SCHEDULES / 2 + 1, CohortSimulationTest.SCHEDULES);
    }
}
