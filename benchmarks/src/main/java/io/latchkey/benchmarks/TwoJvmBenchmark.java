package io.latchkey.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * One hot lock, two JVMs × 8 threads: JMH's threads in this JVM, and a {@link SecondJvmContender}
 * process with as many threads on the same lock, started for the trial. JMH's score is this JVM's
 * throughput; the side metrics add the second JVM's over the same measured windows, and mutual
 * exclusion is checked across both through a {@link SharedCounter}. Fairness between the two is
 * reported as each JVM's wait p99 and the longest run of consecutive grants to one JVM while the
 * other had a waiter, both over the measured windows. Subclasses change the lock
 * ({@link RedLockTwoJvmBenchmark}) or the load ({@link TwoJvmReadWriteBenchmark}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(8)
public class TwoJvmBenchmark extends LockBenchmark {

    private static final long ANSWER_TIMEOUT_SECONDS = 60;
    /** This JVM's number in the {@link SharedCounter}'s fairness count. */
    static final int FIRST_JVM = 0;

    private BenchLock lock;
    private Path sharedFile;
    /** The check of both JVMs' holders, which the subclass's threads count into too. */
    protected SharedCounter shared;
    /** One pass through the counter both JVMs map; made once, so the hot path allocates nothing. */
    private final Runnable sharedPass = () -> {
        shared.granted(FIRST_JVM);
        shared.enter();
        shared.exit();
    };
    private Process second;
    private PrintStream toSecond;
    private BufferedReader fromSecond;
    private long secondTotal = -1;
    private long secondExclusive = -1;
    private long longestRun;
    private String secondWaits;

    /** @return the second JVM's last argument: which lock its threads take, and how */
    protected String secondJvmMode() {
        return SecondJvmContender.PLAIN;
    }

    /**
     * Takes this scenario's lock in this JVM.
     *
     * @param name the lock's name, which the second JVM takes too
     */
    protected void openLocalLock(String name) {
        lock = exclusiveLock(name);
    }

    /**
     * Opens the one lock that {@link #lockUnlock()} takes.
     *
     * @param name the lock's name
     * @return the plain lock
     */
    protected BenchLock exclusiveLock(String name) {
        return backend.plain(name);
    }

    /** @return system properties the second JVM needs besides the single server's URI, as {@code -Dkey=value} */
    protected List<String> secondJvmProperties() {
        return List.of();
    }

    @Override
    protected void openLocks() {
        String name = "bench:two-jvms:" + secondJvmMode() + ":" + library;
        openLocalLock(name);
        try {
            sharedFile = Files.createTempFile("latchkey-bench-counter-", ".bin");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        shared = SharedCounter.map(sharedFile);
        try {
            startSecondJvm(name);
        } catch (RuntimeException e) {
            if (second != null) {
                second.destroyForcibly();
            }
            throw e;
        }
    }

    private void startSecondJvm(String name) {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xms256m", "-Xmx1g",
                "-D" + BenchEnvironment.REDIS + "=" + BenchEnvironment.redisUri(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-D" + LatchkeyBackend.LOCAL_HAND_OFF_PROPERTY + "=" + LatchkeyBackend.LOCAL_HAND_OFF));
        command.addAll(secondJvmProperties());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                SecondJvmContender.class.getName(), library, name, Integer.toString(threads), sharedFile.toString(),
                secondJvmMode()));
        try {
            second = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the second JVM", e);
        }
        toSecond = new PrintStream(second.getOutputStream(), true, StandardCharsets.UTF_8);
        fromSecond = new BufferedReader(new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8));
        String ready = answer();
        if (!ready.equals("ready")) {
            throw new IllegalStateException("the second JVM said " + ready + " instead of ready");
        }
    }

    /** lock(), count under the lock in both checks, unlock(). */
    @Benchmark
    public void lockUnlock() {
        shared.waiting(FIRST_JVM);
        lockCountUnlock(lock, 0, sharedPass);
    }

    @Override
    protected void beginMeasurement() {
        shared.resetLongestRun();
        toSecond.println("begin");
    }

    @Override
    protected void endMeasurement() {
        toSecond.println("end");
        longestRun = Math.max(longestRun, shared.longestRun());
    }

    @Override
    protected long allAcquisitions() {
        toSecond.println("count");
        return exclusion.acquisitions() + Long.parseLong(answer());
    }

    /** Stops the second JVM and checks the shared counter against both JVMs' acquisitions. */
    @Override
    protected void closeLocks() {
        if (second == null) {
            return;
        }
        try {
            toSecond.println("waits");
            secondWaits = answer();
            toSecond.println("stop");
            String[] stopped = answer().split(" ", 4);
            if (stopped.length < 4 || !stopped[0].equals("stopped")) {
                throw new IllegalStateException("the second JVM did not stop cleanly: " + String.join(" ", stopped));
            }
            secondTotal = Long.parseLong(stopped[1]);
            secondExclusive = Long.parseLong(stopped[2]);
            if (!stopped[3].equals("ok")) {
                throw new IllegalStateException("the second JVM failed: " + stopped[3]);
            }
            long both = exclusion.exclusiveAcquisitions() + secondExclusive;
            if (shared.count() != both) {
                throw new IllegalStateException("MUTUAL EXCLUSION VIOLATED across JVMs: the shared counter is "
                        + shared.count() + " but the two JVMs acquired " + both + " times exclusively");
            }
        } finally {
            second.destroy();
            try {
                second.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            second.destroyForcibly();
            try {
                Files.deleteIfExists(sharedFile);
            } catch (IOException e) {
                // A temp file; the OS cleans it.
            }
        }
    }

    @Override
    protected void addMetrics(TrialMetrics metrics) {
        metrics.put("second.jvm.acquisitions.total", secondTotal);
        metrics.put("exclusion.verified.both.jvms", shared.count());
        metrics.put(TrialMetrics.Keys.LONGEST_RUN, longestRun);
        if (secondWaits != null) {
            String[] waits = secondWaits.split(" ");
            metrics.put(TrialMetrics.Keys.SECOND_JVM_WAIT_P99, Long.parseLong(waits[2]));
        }
    }

    /** Reads the second JVM's next line, waiting a bounded time; its end is an error. */
    private String answer() {
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return fromSecond.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            String answer = line.get(ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (answer == null) {
                throw new IllegalStateException("the second JVM ended early; its errors are above");
            }
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the second JVM", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read from the second JVM", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the second JVM did not answer within " + ANSWER_TIMEOUT_SECONDS + " s", e);
        }
    }
}
