package io.latchkey.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks must pass under a real lock and catch the absence of one: a negative control. */
class ExclusionCheckTest {

    private static final int THREADS = 4;
    private static final int ROUNDS = 20_000;

    @Test
    void passesWhenALockSerializesTheHolders() throws InterruptedException {
        ExclusionCheck check = new ExclusionCheck(1);
        ReentrantLock lock = new ReentrantLock();

        runConcurrently(() -> {
            lock.lock();
            try {
                check.enter(0);
                check.exit(0);
            } finally {
                lock.unlock();
            }
        });

        assertEquals(THREADS * ROUNDS, check.verify());
    }

    @Test
    void failsLoudlyWhenASecondHolderEntersAndKeepsFailingAtVerify() {
        ExclusionCheck check = new ExclusionCheck(2);
        check.enter(1);

        IllegalStateException overlap = assertThrows(IllegalStateException.class, () -> check.enter(1));
        check.exit(1);
        IllegalStateException verdict = assertThrows(IllegalStateException.class, check::verify);

        assertTrue(overlap.getMessage().startsWith("MUTUAL EXCLUSION VIOLATED"), overlap.getMessage());
        assertTrue(verdict.getMessage().contains("two holders inside the critical section of lock slot 1"),
                verdict.getMessage());
    }

    @Test
    void countersThatFallBehindTheAcquisitionsFailVerify() {
        ExclusionCheck check = new ExclusionCheck(1);
        check.enter(0);
        check.exit(0);
        // An acquisition counted without its increment under the lock: what a lost update looks like.
        check.exit(0);

        IllegalStateException verdict = assertThrows(IllegalStateException.class, check::verify);

        assertTrue(verdict.getMessage().contains("sum to 1 but there were 2 acquisitions"), verdict.getMessage());
    }

    @Test
    void readersShareASlotAndCountAsAcquisitionsWithoutTheWritersCounter() {
        ExclusionCheck check = new ExclusionCheck(1);
        check.enterShared(0);
        check.enterShared(0);
        check.exitShared(0);
        check.exitShared(0);
        check.enter(0);
        check.exit(0);

        assertEquals(3, check.verify(), "two reads and one write, the write counted under the lock");
        assertEquals(3, check.acquisitions());
    }

    @Test
    void aWriterInsideWithAReaderFailsLoudlyEitherWayRound() {
        ExclusionCheck writerFirst = new ExclusionCheck(1);
        writerFirst.enter(0);
        IllegalStateException readerJoins = assertThrows(IllegalStateException.class, () -> writerFirst.enterShared(0));

        ExclusionCheck readerFirst = new ExclusionCheck(1);
        readerFirst.enterShared(0);
        IllegalStateException writerJoins = assertThrows(IllegalStateException.class, () -> readerFirst.enter(0));

        assertTrue(readerJoins.getMessage().contains("a reader inside the critical section of lock slot 0 with a writer"),
                readerJoins.getMessage());
        assertTrue(writerJoins.getMessage().contains("a writer inside the critical section of lock slot 0 with readers"),
                writerJoins.getMessage());
        assertThrows(IllegalStateException.class, readerFirst::verify);
    }

    @Test
    void sharedCounterCountsAcrossMappingsOfTheSameFile(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("counter.bin"));
        SharedCounter first = SharedCounter.map(file);
        SharedCounter second = SharedCounter.map(file);

        first.enter();
        first.exit();
        second.enter();
        second.exit();

        assertEquals(2, first.count());
        first.enter();
        IllegalStateException overlap = assertThrows(IllegalStateException.class, second::enter);
        assertTrue(overlap.getMessage().startsWith("MUTUAL EXCLUSION VIOLATED"), overlap.getMessage());
    }

    private static void runConcurrently(Runnable round) throws InterruptedException {
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < ROUNDS; i++) {
                    round.run();
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
