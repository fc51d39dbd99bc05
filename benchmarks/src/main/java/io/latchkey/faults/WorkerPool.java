package io.latchkey.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The harness's worker JVMs: starts them, picks one to fault, replaces one it killed, and watches
 * them for hangs and crashes. Their logs and thread dumps go to a run directory, deleted by
 * {@link #deleteRunDir()} after a run that passed. The list may change while the watch reads it.
 */
final class WorkerPool implements AutoCloseable {

    private static final long READY_TIMEOUT_SECONDS = 60;
    private static final long INSIDE_WAIT_MILLIS = 3_000;

    private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
    private final AtomicInteger nextWorker = new AtomicInteger();
    private final AtomicInteger dumps = new AtomicInteger();
    private final Function<String, List<String>> argsForId;
    private final int threads;
    private final Path runDir;
    private final WorkerProcess.EventListener events;

    /**
     * @param argsForId the worker's command-line arguments, given its id
     * @param events receives every worker's events
     */
    WorkerPool(Function<String, List<String>> argsForId, int threads, Path runDir,
            WorkerProcess.EventListener events) {
        this.argsForId = argsForId;
        this.threads = threads;
        this.runDir = runDir;
        this.events = events;
    }

    Path runDir() {
        return runDir;
    }

    /** Starts {@code count} workers and waits until each is ready. */
    void start(int count) throws IOException, InterruptedException {
        for (int i = 0; i < count; i++) {
            workers.add(startOne());
        }
        for (WorkerProcess worker : workers) {
            awaitReady(worker);
        }
    }

    /** @return a worker with a holder inside its critical section if one shows up within 3 s, else any */
    WorkerProcess pickHolder() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(INSIDE_WAIT_MILLIS);
        while (System.nanoTime() < deadline) {
            for (WorkerProcess worker : workers) {
                if (worker.holdsInside() && worker.isAlive()) {
                    return worker;
                }
            }
            Thread.sleep(2);
        }
        return workers.get(0);
    }

    /**
     * {@code kill -9} of {@code worker}, then a new worker in its place.
     *
     * @param dead told the dead worker's holder prefix once its process is gone, before the new one starts
     */
    void killAndReplace(WorkerProcess worker, Consumer<String> dead) throws IOException, InterruptedException {
        worker.kill();
        workers.remove(worker);
        dead.accept(worker.holderPrefix());
        WorkerProcess replacement = startOne();
        workers.add(replacement);
        awaitReady(replacement);
    }

    /** Restarts every worker's silence from now: the hang clock starts when a fault ends. */
    void markAllProgress() {
        workers.forEach(WorkerProcess::markAllProgress);
    }

    /**
     * One look for trouble: a worker that died by itself, or a live one, not frozen on purpose,
     * with a thread silent for longer than {@code limitNanos} (counted once per silence, with a
     * thread dump).
     *
     * @param trouble told what was found, one sentence each
     * @return how many workers were found hung or dead
     */
    int watch(long limitNanos, Consumer<String> trouble) {
        int found = 0;
        for (WorkerProcess worker : workers) {
            if (!worker.isAlive()) {
                trouble.accept("worker " + worker.id() + " exited by itself; see " + worker.log());
                workers.remove(worker);
                found++;
            } else if (!worker.isFrozen() && worker.longestSilenceNanos() > limitNanos) {
                Path dump = worker.threadDump(runDir, dumps.incrementAndGet());
                trouble.accept("worker " + worker.id() + " made no progress for "
                        + TimeUnit.NANOSECONDS.toMillis(limitNanos) + " ms; thread dump: "
                        + (dump == null ? "none could be taken" : dump));
                worker.markAllProgress();
                found++;
            }
        }
        return found;
    }

    /** After a run that passed: ends the workers and deletes their logs. */
    void deleteRunDir() throws IOException, InterruptedException {
        close();
        for (WorkerProcess worker : workers) {
            worker.awaitExit();
        }
        try (Stream<Path> files = Files.walk(runDir)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }

    private WorkerProcess startOne() throws IOException {
        String id = "w" + nextWorker.incrementAndGet();
        return WorkerProcess.start(id, argsForId.apply(id), threads, runDir, events);
    }

    private static void awaitReady(WorkerProcess worker) throws InterruptedException {
        if (!worker.awaitReady(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("worker " + worker.id() + " did not start within "
                    + READY_TIMEOUT_SECONDS + " s; see " + worker.log());
        }
    }

    /** Kills every worker (thawing a frozen one first). */
    @Override
    public void close() {
        for (WorkerProcess worker : workers) {
            worker.close();
        }
    }
}
