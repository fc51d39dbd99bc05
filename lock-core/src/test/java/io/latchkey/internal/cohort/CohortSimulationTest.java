package io.latchkey.internal.cohort;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.cohort.CohortSimulation.Faults;
import io.latchkey.internal.simulation.SeededSchedule;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The cohort's interleavings explored by {@link CohortSimulation}: many seeds, each a schedule of
 * 2–3 clients with several owners, with and without faults. This class runs the first half of the
 * seeds, {@link CohortSimulationSecondHalfTest} the second, each in one of lock-core's two test
 * JVMs (two threads of one JVM were slower than one under JaCoCo's agent, which both update). A
 * failing seed prints its events and replays exactly with {@code -Dlatchkey.simulation.seed=<seed>}.
 */
class CohortSimulationTest {

    static final int SCHEDULES = Integer.getInteger("latchkey.simulation.schedules", 100_000);

    @Test
    void everyScheduleOfTheFirstHalfKeepsTheInvariants() {
        Long replay = Long.getLong("latchkey.simulation.seed");
        if (replay != null) {
            simulation(replay, true).run();
            return;
        }
        explore(1, SCHEDULES / 2);
    }

    /** Runs the schedules of these seeds, and a failing one again with its trace. */
    static void explore(long firstSeed, long lastSeed) {
        long start = System.nanoTime();
        long steps = 0;
        for (long seed = firstSeed; seed <= lastSeed; seed++) {
            steps += SeededSchedule.runTracingAFailure(seed, CohortSimulationTest::simulation);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long schedules = lastSeed - firstSeed + 1;
        System.out.printf("cohort simulation: seeds %,d to %,d, %,d steps in %,d ms%n", firstSeed, lastSeed, steps, millis);
        assertTrue(steps > schedules);
    }

    private static CohortSimulation simulation(long seed, boolean fullTrace) {
        int clients = 2 + (int) (seed % 2);
        // One schedule in ten has a hot client, whose owners pass the lock around while others wait;
        // half of those are slow: connections stall for much of the schedule and most wait notices
        // are lost, so that only reads of the mark tell, and late, and the hot owners hold for steps
        // only, so that one stall spans many hand-offs.
        int hotAttempts = seed % 10 == 5 ? 20 : 0;
        boolean slow = seed % 20 == 15;
        // Otherwise a quarter without faults, a quarter with clients closed under their owners too.
        Faults faults = slow ? Faults.SLOW_AND_DEAF_TO_WAITS
                : seed % 4 == 0 ? Faults.NONE : seed % 4 == 1 ? Faults.SOME_AND_CLOSE : Faults.SOME;
        return new CohortSimulation(seed, clients, 2 + (int) (seed % 3), 2, hotAttempts, slow, faults, fullTrace);
    }
}
