package io.latchkey.faults;

import io.latchkey.testing.ProcessSignals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One {@link FaultWorker} JVM as the harness sees it: started with the harness's own class path,
 * its event lines read on a thread of their own and handed to a listener, its progress per
 * worker thread timed on the harness's monotonic clock. The harness kills it with {@code SIGKILL},
 * freezes it with {@code SIGSTOP} and takes its thread dump with {@code jcmd}.
 */
final class WorkerProcess implements AutoCloseable {

    private final String id;
    private final Process process;
    private final Path log;
    private final AtomicLongArray lastProgress;
    private final AtomicInteger inside = new AtomicInteger();
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile boolean frozen;

    private WorkerProcess(String id, Process process, Path log, int threads) {
        this.id = id;
        this.process = process;
        this.log = log;
        this.lastProgress = new AtomicLongArray(threads);
        markAllProgress();
    }

    /**
     * Starts a worker JVM.
     *
     * @param events receives each event line the worker prints, with this worker
     */
    static WorkerProcess start(String id, List<String> workerArgs, int threads, Path runDir,
            EventListener events) throws IOException {
        return start(FaultWorker.class.getName(), id, workerArgs, threads, runDir, events);
    }

    /** Like {@link #start(String, List, int, Path, EventListener)}, with another main class (tests). */
    static WorkerProcess start(String mainClass, String id, List<String> workerArgs, int threads, Path runDir,
            EventListener events) throws IOException {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                mainClass));
        command.addAll(workerArgs);
        Path log = runDir.resolve("worker-" + id + ".log");
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        process.getOutputStream().close();
        WorkerProcess worker = new WorkerProcess(id, process, log, threads);
        Thread reader = new Thread(() -> worker.read(events), "worker-" + id + "-reader");
        reader.setDaemon(true);
        reader.start();
        return worker;
    }

    private void read(EventListener events) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] parts = line.split(" ", 3);
                WorkerEvent event = WorkerEvent.of(parts[0]);
                if (event == null || parts.length < 2) {
                    continue;
                }
                int thread = Integer.parseInt(parts[1]);
                String detail = parts.length > 2 ? parts[2] : "";
                if (event == WorkerEvent.READY) {
                    markAllProgress();
                    ready.countDown();
                    continue;
                }
                if (thread >= 0 && thread < lastProgress.length()) {
                    lastProgress.set(thread, System.nanoTime());
                }
                if (event == WorkerEvent.INSIDE) {
                    inside.incrementAndGet();
                } else if (event == WorkerEvent.OUTSIDE) {
                    inside.decrementAndGet();
                }
                events.on(this, event, detail);
            }
        } catch (IOException | RuntimeException e) {
            // The process ended (killed on purpose, or crashed: isAlive() tells).
        }
    }

    /** Waits until the worker has connected and started its threads; false if it did not in time. */
    boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return ready.await(timeout, unit);
    }

    String id() {
        return id;
    }

    /** @return the prefix of every holder id of this worker */
    String holderPrefix() {
        return id + ":";
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    boolean isFrozen() {
        return frozen;
    }

    /** @return whether a holder of this worker is inside a critical section, as far as its last lines say */
    boolean holdsInside() {
        return inside.get() > 0;
    }

    /** @return the longest time, in ns, since one of its threads last reported anything */
    long longestSilenceNanos() {
        long now = System.nanoTime();
        long longest = 0;
        for (int i = 0; i < lastProgress.length(); i++) {
            longest = Math.max(longest, now - lastProgress.get(i));
        }
        return longest;
    }

    /** Restarts every thread's silence from now, after a fault that excused it (a freeze, Redis down). */
    void markAllProgress() {
        long now = System.nanoTime();
        for (int i = 0; i < lastProgress.length(); i++) {
            lastProgress.set(i, now);
        }
    }

    /** {@code kill -9}, and waits until the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    void freeze() {
        ProcessSignals.stop(process.pid());
        frozen = true;
    }

    void thaw() {
        ProcessSignals.resume(process.pid());
        frozen = false;
        markAllProgress();
    }

    /**
     * Writes the worker's thread dump to a file with {@code jcmd <pid> Thread.print}.
     *
     * @return the file, or null if no dump could be taken
     */
    Path threadDump(Path runDir, int number) {
        Path dump = runDir.resolve("hung-worker-" + id + "-" + number + ".txt");
        Path jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(dump.toFile())
                    .start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return Files.size(dump) > 0 ? dump : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Waits a few seconds at most for the process to end, after {@link #close()} or {@link #kill()}. */
    void awaitExit() throws InterruptedException {
        process.waitFor(10, TimeUnit.SECONDS);
    }

    Path log() {
        return log;
    }

    @Override
    public void close() {
        if (frozen && process.isAlive()) {
            ProcessSignals.resume(process.pid());
        }
        process.destroyForcibly();
    }

    /** Receives the events of every worker, on the workers' reader threads. */
    interface EventListener {
        void on(WorkerProcess worker, WorkerEvent event, String detail);
    }
}
