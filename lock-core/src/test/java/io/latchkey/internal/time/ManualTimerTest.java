package io.latchkey.internal.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The test clock itself: the other unit tests are only as exact as it is. */
class ManualTimerTest {

    private final ManualTimer timer = ManualTimer.manual();
    private final List<String> fired = new CopyOnWriteArrayList<>();

    @Test
    void timeoutsFireWhenTimeReachesThemInTheOrderOfTheirDeadlinesSeeingTheirOwnDeadline() {
        timer.newTimeout(t -> fired.add("300 at " + timer.ticker().read()), 300, TimeUnit.NANOSECONDS);
        timer.newTimeout(t -> fired.add("100 at " + timer.ticker().read()), 100, TimeUnit.NANOSECONDS);
        timer.newTimeout(t -> fired.add("also 100 at " + timer.ticker().read()), 100, TimeUnit.NANOSECONDS);

        timer.advance(99, TimeUnit.NANOSECONDS);
        assertEquals(List.of(), fired);
        timer.advance(Duration.ofNanos(1000));

        assertEquals(List.of("100 at 100", "also 100 at 100", "300 at 300"), fired);
        assertEquals(1099, timer.ticker().read());
    }

    @Test
    void aTimeoutThatAFiredTaskSchedulesFiresInTheSameAdvanceIfItFallsDue() {
        timer.newTimeout(t -> {
            fired.add("first");
            timer.newTimeout(again -> fired.add("second at " + timer.ticker().read()), 50, TimeUnit.NANOSECONDS);
        }, 100, TimeUnit.NANOSECONDS);

        timer.advance(Duration.ofNanos(200));

        assertEquals(List.of("first", "second at 150"), fired);
        assertEquals(0, timer.pending());
    }

    @Test
    void aCancelledTimeoutNeverFiresAndAStoppedTimerRefusesNewOnes() {
        timer.newTimeout(t -> fired.add("cancelled"), 1, TimeUnit.MILLISECONDS).cancel();
        timer.newTimeout(t -> fired.add("pending"), 1, TimeUnit.DAYS);

        timer.advance(Duration.ofSeconds(1));
        assertEquals(List.of(), fired);
        assertEquals(1, timer.stop().size(), "stop() returns what never ran");
        assertThrows(IllegalStateException.class, () -> timer.newTimeout(t -> { }, 1, TimeUnit.MILLISECONDS));
    }
}
