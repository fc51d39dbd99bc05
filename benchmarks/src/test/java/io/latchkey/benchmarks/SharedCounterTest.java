package io.latchkey.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedCounterTest {

    @TempDir
    Path dir;

    /** One grant to {@code jvm}, made while it had one thread waiting. */
    private static void grant(SharedCounter counter, int jvm) {
        counter.waiting(jvm);
        counter.granted(jvm);
        counter.enter();
        counter.exit();
    }

    @Test
    void countsTheLongestRunOfGrantsToOneJvmWhileTheOtherWaited() {
        SharedCounter counter = SharedCounter.map(dir.resolve("counter"));
        counter.waiting(1);
        grant(counter, 0);
        grant(counter, 0);
        grant(counter, 0);
        counter.granted(1); // the waiter of JVM 1 gets its turn: the run of three ends
        grant(counter, 0);  // JVM 1 has nobody waiting now: this grant kept nobody out
        grant(counter, 0);
        counter.waiting(0);
        grant(counter, 1);
        grant(counter, 1);

        assertEquals(3, counter.longestRun());
        assertEquals(7, counter.count());
    }

    @Test
    void theOtherJvmSeesTheSameRunsAndAResetStartsAWindow() {
        Path file = dir.resolve("counter");
        SharedCounter first = SharedCounter.map(file);
        SharedCounter second = SharedCounter.map(file);
        first.waiting(0);
        grant(second, 1);
        grant(second, 1);
        assertEquals(2, first.longestRun());

        first.resetLongestRun();
        assertEquals(0, second.longestRun());
        grant(second, 1); // the run goes on: three grants, counted whole
        assertEquals(3, first.longestRun());
    }

    @Test
    void readersOfEitherJvmShareButAReaderAndAWriterInsideAtOnceAreCaught() {
        Path file = dir.resolve("counter");
        SharedCounter first = SharedCounter.map(file);
        SharedCounter second = SharedCounter.map(file);
        first.enterShared();
        second.enterShared();
        assertThrows(IllegalStateException.class, first::enter, "a writer while two read");
        first.exitShared();
        second.exitShared();

        second.enter();
        assertThrows(IllegalStateException.class, first::enterShared, "a reader while one writes");
        second.exit();
        first.enterShared();
        first.exitShared();
        assertEquals(2, first.count(), "every writer that entered is counted, the readers not");
    }

    @Test
    void onlyTwoJvms() {
        SharedCounter counter = SharedCounter.map(dir.resolve("counter"));
        assertThrows(IllegalArgumentException.class, () -> counter.waiting(2));
    }
}
