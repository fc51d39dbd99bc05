package io.latchkey.benchmarks;

import io.latchkey.measure.LatencyHistogram;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The second JVM of the two-JVM scenarios: its threads take the benchmark's lock in a loop, as
 * the JMH threads do in the first JVM, and count into the same {@link SharedCounter}. Started and
 * steered by {@link TwoJvmBenchmark} over standard input and output, one line each way:
 * it prints {@code ready} once its threads run; {@code count} answers the acquisitions so far;
 * {@code begin} and {@code end} (no answer) open and close a measured window for the wait times;
 * {@code waits} answers {@code <count> <p50> <p99> <p99.9>} (nanoseconds) of the waits in the
 * measured windows so far; {@code stop} (or the end of input) stops the threads and answers
 * {@code stopped <acquisitions> <exclusive acquisitions> <ok|failure>}, then the process exits.
 *
 * <p>Arguments: {@code library lockName threads sharedCounterFile [plain|read-write|redlock]}: the
 * plain lock (the default), a read-write lock taken nine times in ten to read, as
 * {@link TwoJvmReadWriteBenchmark}'s threads take it (the fairness count then counts the writes),
 * or a RedLock, as {@link RedLockTwoJvmBenchmark}'s threads take it. Redis comes from
 * {@link BenchEnvironment#REDIS}, RedLock's masters from {@link BenchEnvironment#RED_LOCK_MASTERS}.
 */
public final class SecondJvmContender {

    /** This JVM's number in the {@link SharedCounter}'s fairness count; the JMH JVM is 0. */
    static final int SECOND_JVM = 1;
    /** The last argument (or none) that has the threads take the plain lock. */
    static final String PLAIN = "plain";
    /** The last argument that has the threads take a read-write lock. */
    static final String READ_WRITE = "read-write";
    /** The last argument that has the threads take a RedLock. */
    static final String RED_LOCK = "redlock";
    /** One acquisition in this many writes, as in {@link ReadWriteBenchmark}. */
    static final int WRITE_EVERY = 10;

    private SecondJvmContender() {
    }

    /**
     * @param args library, lock name, threads, shared counter file, and the lock: plain (the default),
     *     read-write or redlock
     * @throws Exception if the contender cannot start; the parent sees the process end
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 5) {
            throw new IllegalArgumentException(
                    "usage: SecondJvmContender library lockName threads sharedCounterFile [plain|read-write|redlock]");
        }
        String mode = args.length == 5 ? args[4] : PLAIN;
        Library library = Library.of(args[0]);
        String lockName = args[1];
        int threads = Integer.parseInt(args[2]);
        SharedCounter shared = SharedCounter.map(Paths.get(args[3]));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

        LongAdder acquisitions = new LongAdder();
        LongAdder exclusive = new LongAdder();
        Waits waits = new Waits();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        try (LockBackend backend = library.open(Duration.ofSeconds(30))) {
            Sides lock = sides(backend, mode, lockName);
            try {
                for (int i = 0; i < threads; i++) {
                    Counts counts = new Counts(acquisitions, exclusive, waits);
                    Thread worker = new Thread(() -> contend(lock, shared, running, counts, failure), "second-jvm-" + i);
                    worker.start();
                    workers.add(worker);
                }
                out.println("ready");
                awaitStop(out, acquisitions, waits);
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
        out.println("stopped " + acquisitions.sum() + " " + exclusive.sum() + " "
                + (end == null ? "ok" : String.valueOf(end).replace('\n', ' ')));
    }

    /** The plain lock and the RedLock are taken as a write side with no read side. */
    private static Sides sides(LockBackend backend, String mode, String lockName) {
        switch (mode) {
            case READ_WRITE:
                LockBackend.ReadWrite sides = backend.readWrite(lockName);
                return new Sides(sides.read(), sides.write());
            case RED_LOCK:
                return new Sides(null, backend.red(lockName));
            case PLAIN:
                return new Sides(null, backend.plain(lockName));
            default:
                throw new IllegalArgumentException("no such lock for the second JVM: " + mode);
        }
    }

    /** Answers the parent's lines until {@code stop} or the end of input. */
    private static void awaitStop(PrintStream out, LongAdder acquisitions, Waits waits) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
            switch (line) {
                case "count":
                    out.println(acquisitions.sum());
                    break;
                case "begin":
                    waits.measuring = true;
                    break;
                case "end":
                    waits.measuring = false;
                    break;
                case "waits":
                    out.println(waits.summary());
                    break;
                default:
                    throw new IOException("unknown command from the parent: " + line);
            }
        }
    }

    /** This JVM's wait times in the parent's measured windows. */
    private static final class Waits {
        final LatencyHistogram histogram = new LatencyHistogram();
        volatile boolean measuring;

        void record(long nanos) {
            if (measuring) {
                histogram.record(nanos);
            }
        }

        String summary() {
            return histogram.count() + " " + histogram.percentile(0.50) + " " + histogram.percentile(0.99) + " "
                    + histogram.percentile(0.999);
        }
    }

    /**
     * The locks the workers take.
     *
     * @param read the read side, or null for the plain lock and the RedLock
     * @param write the write side, or the plain lock or the RedLock
     */
    private record Sides(BenchLock read, BenchLock write) {
    }

    /** What the workers count. */
    private record Counts(LongAdder acquisitions, LongAdder exclusive, Waits waits) {
    }

    /** Takes the lock in a loop: the write side (or the plain lock, or the RedLock) exclusively, the read side shared. */
    private static void contend(Sides lock, SharedCounter shared, AtomicBoolean running, Counts counts,
            AtomicReference<Throwable> failure) {
        try {
            while (running.get()) {
                boolean reading = lock.read() != null && ThreadLocalRandom.current().nextInt(WRITE_EVERY) != 0;
                if (!reading) {
                    shared.waiting(SECOND_JVM);
                }
                BenchLock taken = reading ? lock.read() : lock.write();
                long began = System.nanoTime();
                taken.lock();
                long waited = System.nanoTime() - began;
                try {
                    if (reading) {
                        shared.enterShared();
                        shared.exitShared();
                    } else {
                        shared.granted(SECOND_JVM);
                        shared.enter();
                        shared.exit();
                    }
                } finally {
                    taken.unlock();
                }
                counts.acquisitions().increment();
                if (!reading) {
                    counts.exclusive().increment();
                }
                counts.waits().record(waited);
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            running.set(false);
            e.printStackTrace();
        }
    }
}
