package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.lock.FairGrantSimulation.Faults;
import io.latchkey.internal.simulation.SeededSchedule;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The fair lock's grant at the release explored by {@link FairGrantSimulation}: many seeds, each a
 * schedule of one client whose owners lock, hold and unlock, one owner id shared by two async
 * callers, with and without faults. A failing seed prints its events and replays exactly with
 * {@code -Dlatchkey.fairsimulation.seed=<seed>}; {@code -Dlatchkey.fairsimulation.schedules=<n>}
 * runs more or fewer, from {@code -Dlatchkey.fairsimulation.firstseed=<seed>} (1), each caller
 * making {@code -Dlatchkey.fairsimulation.attempts=<n>} attempts (5); a replay needs the same
 * attempts.
 */
class FairGrantSimulationTest {

    private static final int SCHEDULES = Integer.getInteger("latchkey.fairsimulation.schedules", 10_000);
    private static final long FIRST_SEED = Long.getLong("latchkey.fairsimulation.firstseed", 1);
    private static final int ATTEMPTS = Integer.getInteger("latchkey.fairsimulation.attempts", 5);

    @Test
    void everyScheduleKeepsTheInvariants() {
        Long replay = Long.getLong("latchkey.fairsimulation.seed");
        if (replay != null) {
            simulation(replay, true).run();
            return;
        }
        long start = System.nanoTime();
        long steps = LongStream.range(FIRST_SEED, FIRST_SEED + SCHEDULES)
                .map(seed -> SeededSchedule.runTracingAFailure(seed, FairGrantSimulationTest::simulation)).sum();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf(Locale.ROOT, "fair grant simulation: %,d schedules, %,d steps in %,d ms%n", SCHEDULES, steps, millis);
        assertTrue(steps > SCHEDULES);
    }

    static FairGrantSimulation simulation(long seed, boolean traced) {
        // An eighth without faults, a quarter with many.
        Faults faults = switch ((int) (seed % 8)) {
            case 0 -> Faults.NONE;
            case 3, 6 -> Faults.MANY;
            default -> Faults.SOME;
        };
        int owners = 1 + (int) (seed % 3);
        return new FairGrantSimulation(seed, owners, ATTEMPTS, faults, traced);
    }
}
