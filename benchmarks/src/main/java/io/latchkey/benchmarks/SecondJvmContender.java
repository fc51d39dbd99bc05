package io.latchkey.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The second JVM of the two-JVM scenario: its threads take the benchmark's lock in a loop, as
 * the JMH threads do in the first JVM, and count into the same {@link SharedCounter}. Started and
 * steered by {@link TwoJvmBenchmark} over standard input and output, one line each way:
 * it prints {@code ready} once its threads run; {@code count} answers the acquisitions so far;
 * {@code stop} (or the end of input) stops the threads and answers
 * {@code stopped <acquisitions> <ok|failure>}, then the process exits.
 *
 * <p>Arguments: {@code library lockName threads sharedCounterFile}. Redis comes from
 * {@link BenchEnvironment#REDIS}.
 */
public final class SecondJvmContender {

    private SecondJvmContender() {
    }

    /**
     * @param args library, lock name, threads, shared counter file
     * @throws Exception if the contender cannot start; the parent sees the process end
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: SecondJvmContender library lockName threads sharedCounterFile");
        }
        Library library = Library.of(args[0]);
        String lockName = args[1];
        int threads = Integer.parseInt(args[2]);
        SharedCounter shared = SharedCounter.map(Paths.get(args[3]));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

        LongAdder acquisitions = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        try (LockBackend backend = library.open(Duration.ofSeconds(30))) {
            BenchLock lock = backend.plain(lockName);
            try {
                for (int i = 0; i < threads; i++) {
                    Thread worker = new Thread(() -> contend(lock, shared, running, acquisitions, failure), "second-jvm-" + i);
                    worker.start();
                    workers.add(worker);
                }
                out.println("ready");
                awaitStop(out, acquisitions);
            } catch (IOException e) {
                failure.compareAndSet(null, e);
            } finally {
                // Stop before the backend closes, so that no worker fails on a closed client.
                running.set(false);
                for (Thread worker : workers) {
                    worker.join();
                }
            }
        }
        Throwable end = failure.get();
        out.println("stopped " + acquisitions.sum() + " " + (end == null ? "ok" : String.valueOf(end).replace('\n', ' ')));
    }

    /** Answers {@code count} until {@code stop} or the end of input. */
    private static void awaitStop(PrintStream out, LongAdder acquisitions) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
            if (line.equals("count")) {
                out.println(acquisitions.sum());
            }
        }
    }

    private static void contend(BenchLock lock, SharedCounter shared, AtomicBoolean running, LongAdder acquisitions,
            AtomicReference<Throwable> failure) {
        try {
            while (running.get()) {
                lock.lock();
                try {
                    shared.enter();
                    shared.exit();
                } finally {
                    lock.unlock();
                }
                acquisitions.increment();
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            running.set(false);
            e.printStackTrace();
        }
    }
}
