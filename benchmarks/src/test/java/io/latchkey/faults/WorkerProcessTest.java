package io.latchkey.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the harness's hang watch relies on, against a real child JVM: events reach the listener,
 * a thread that reports nothing grows silent while one that reports stays fresh, and a silent
 * worker's thread dump names the thread that hangs.
 */
class WorkerProcessTest {

    @Test
    @Timeout(60)
    void aSilentThreadIsSeenAndItsThreadDumpTaken(@TempDir Path runDir) throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        try (WorkerProcess worker = WorkerProcess.start(SilentWorkerMain.class.getName(), "w1", List.of(), 2, runDir,
                (process, event, detail) -> events.add(event + " " + detail))) {
            assertTrue(worker.awaitReady(30, TimeUnit.SECONDS), "the child JVM never said it was ready");
            long startedSilence = System.nanoTime();
            while (!events.contains("ACQUIRED 42")) {
                assertTrue(System.nanoTime() - startedSilence < TimeUnit.SECONDS.toNanos(20), "no event: " + events);
                Thread.sleep(10);
            }
            // Thread 0 reported once, thread 1 never: the silence is thread 1's, since the start.
            Thread.sleep(300);
            assertTrue(worker.longestSilenceNanos() >= TimeUnit.MILLISECONDS.toNanos(300));
            worker.markAllProgress();
            assertTrue(worker.longestSilenceNanos() < TimeUnit.MILLISECONDS.toNanos(300));

            Path dump = worker.threadDump(runDir, 1);
            assertNotNull(dump, "no thread dump");
            assertTrue(Files.readString(dump).contains("silent-thread"), Files.readString(dump));
            assertTrue(worker.isAlive());
            worker.kill();
            assertFalse(worker.isAlive());
        }
        assertEquals("ACQUIRED 42", events.get(0));
    }

    /** A worker whose thread 0 reports one acquisition and whose thread 1 hangs. */
    public static final class SilentWorkerMain {
        private SilentWorkerMain() {
        }

        public static void main(String[] args) throws Exception {
            Thread silent = new Thread(() -> {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "silent-thread");
            silent.start();
            System.out.println("R -1");
            System.out.println("A 0 42");
            System.out.flush();
            silent.join();
        }
    }
}
