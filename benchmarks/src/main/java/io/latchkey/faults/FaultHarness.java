package io.latchkey.faults;

import io.latchkey.faults.FaultOptions.UsageException;
import io.latchkey.testing.RedisServer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The fault harness, {@code java -jar latchkey-faults.jar}: starts (or is given) the lock's Redis
 * and a checker Redis, runs {@code --workers} {@link FaultWorker} JVMs against a few locks of each
 * {@link LockKind}, injects each {@link Fault} in turn, and prints a table per fault. See
 * {@link FaultOptions#USAGE} and the README's "Fault harness".
 */
public final class FaultHarness {

    /** Exit status: no violation, or only known limits. */
    public static final int PASSED = 0;
    /** Exit status: a violation that is no known limit of its fault, a hang, or a harness failure. */
    public static final int FAILED = 1;
    /** Exit status: the command line was wrong. */
    public static final int USAGE = 2;


    private final FaultOptions options;
    private final PrintStream out;
    private final LockRedis lockRedis;
    /** Null without RedLocks. */
    private final RedLockMasters redLockMasters;
    private final String checkerUri;
    private final Checker checker;
    /** {@code kind:name} of each lock, the kinds in turn from {@code --kinds}. */
    private final List<String> locks = new ArrayList<>();
    private final WorkerPool workers;
    private final Map<Fault, FaultTally> tallies = new EnumMap<>(Fault.class);
    private final List<String> notes = new CopyOnWriteArrayList<>();
    private volatile FaultTally current;
    private volatile boolean injecting;

    private FaultHarness(FaultOptions options, PrintStream out, LockRedis lockRedis, RedLockMasters redLockMasters,
            String checkerUri, Path runDir) {
        this.options = options;
        this.out = out;
        this.lockRedis = lockRedis;
        this.redLockMasters = redLockMasters;
        this.checkerUri = checkerUri;
        this.checker = new Checker(checkerUri);
        for (Fault fault : Fault.values()) {
            tallies.put(fault, new FaultTally(fault));
        }
        this.current = tallies.get(Fault.NONE);
        for (int i = 1; i <= options.locks; i++) {
            String kind = options.kinds.get((i - 1) % options.kinds.size()).key();
            locks.add(kind + ":faults-" + kind + "-" + i);
        }
        this.workers = new WorkerPool(this::workerArgs, options.threads, runDir,
                (worker, event, detail) -> current.on(event, detail));
    }

    /**
     * Runs the harness and exits with its status.
     *
     * @param args the command line; {@code --help} lists it
     */
    public static void main(String[] args) {
        System.exit(run(System.out, System.err, args));
    }

    /**
     * Runs the harness in this JVM (the workers in JVMs of their own).
     *
     * @param out where the progress and the table go
     * @param err where usage errors and failures go
     * @param args the command line
     * @return {@link #PASSED}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
        FaultOptions options;
        try {
            options = FaultOptions.parse(args);
        } catch (UsageException e) {
            err.println("latchkey-faults: " + e.getMessage());
            err.println("Try --help.");
            return USAGE;
        }
        if (options.help) {
            out.print(FaultOptions.USAGE);
            return PASSED;
        }
        RedisServer checkerServer = null;
        LockRedis lockRedis = null;
        RedLockMasters redLockMasters = null;
        try {
            Path runDir = Files.createTempDirectory("latchkey-faults-");
            if (options.redisUri != null) {
                lockRedis = LockRedis.given(options.redisUri);
            } else if (options.topology == Topology.SENTINEL) {
                lockRedis = LockRedis.startSentinel();
            } else if (options.topology == Topology.CLUSTER) {
                lockRedis = LockRedis.startCluster();
            } else {
                lockRedis = LockRedis.start();
            }
            if (options.kinds.contains(LockKind.REDLOCK)) {
                redLockMasters = RedLockMasters.start(lockRedis);
            }
            String checkerUri = options.checkerUri;
            if (checkerUri == null) {
                checkerServer = RedisServer.start();
                checkerUri = checkerServer.uri();
            }
            FaultHarness harness = new FaultHarness(options, out, lockRedis, redLockMasters, checkerUri, runDir);
            try {
                return harness.execute();
            } finally {
                harness.close();
            }
        } catch (Exception e) {
            err.println("latchkey-faults: " + e);
            return FAILED;
        } finally {
            if (redLockMasters != null) {
                redLockMasters.close();
            }
            if (lockRedis != null) {
                lockRedis.close();
            }
            if (checkerServer != null) {
                checkerServer.close();
            }
        }
    }

    private int execute() throws Exception {
        checker.clear(lockNames());
        out.printf("Latchkey fault harness: %d worker JVMs × %d threads on %s; lease (watchdog) %d ms, "
                        + "renewal %d ms, command timeout %d ms%n",
                options.workers, options.threads, String.join(", ", locks), lease(), renewal(), commandTimeout());
        out.printf("Acquisitions: half tryAcquire(%d ms), longer than every outage here; 35 %% acquire(); "
                + "15 %% tryAcquire(0); a read-write lock's 3 in 4 read; local hand-off %s%n", options.wait.toMillis(),
                options.localHandOff ? "on (plain locks, shared reads, RedLocks)" : "off (--no-local-hand-off)");
        CriticalSections sections = options.sections;
        out.printf("Critical sections per 1,000 holds: %d empty, %d of 1-40 ms, %d longer than the renewal period%n",
                sections.emptyPerMille(), sections.shortPerMille(), sections.longPerMille());
        if (options.fixedLease != null) {
            out.printf("Every hold takes a fixed lease of %d ms, never renewed (--fixed-lease)%n",
                    options.fixedLease.toMillis());
        }
        out.printf("Lock Redis: %s%n", lockRedis.description());
        if (redLockMasters != null) {
            out.printf("RedLock masters: %s%n", redLockMasters.description());
        }
        out.printf("Checker Redis: %s (separate)%nWorker logs and thread dumps (kept if the run fails): %s%n%n",
                checkerUri, workers.runDir());
        out.flush();
        workers.start(options.workers);
        ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fault-harness-watch");
            thread.setDaemon(true);
            return thread;
        });
        FaultProgress progress = new FaultProgress(out, System.console() != null, checker, tallies);
        long began = System.nanoTime();
        try {
            watch.scheduleWithFixedDelay(this::watchWorkers, 250, 250, TimeUnit.MILLISECONDS);
            watch.scheduleWithFixedDelay(() -> progress.print(current.fault), 1, 1, TimeUnit.SECONDS);
            runSchedule(progress);
        } finally {
            watch.shutdownNow();
            watch.awaitTermination(5, TimeUnit.SECONDS);
            progress.end();
        }
        long elapsed = System.nanoTime() - began;
        String leases = options.fixedLease == null
                ? "lease " + lease() + " ms, renewal every " + renewal() + " ms"
                : "fixed lease " + options.fixedLease.toMillis() + " ms, not renewed";
        KindReport kinds = new KindReport(checker.kindCounters(), locks,
                redLockMasters == null ? -1 : redLockMasters.scriptCallsPerMaster());
        FaultReport report = new FaultReport(tallies, checker.counters(), scheduled(), notes, elapsed, leases, kinds);
        out.print(report.render());
        out.flush();
        if (!report.passed()) {
            return FAILED;
        }
        workers.deleteRunDir();
        return PASSED;
    }

    private void runSchedule(FaultProgress progress) throws Exception {
        List<Fault> schedule = scheduled();
        do {
            for (Fault fault : schedule) {
                FaultTally tally = tallies.get(fault);
                current = tally;
                checker.startFault(fault.name());
                tally.runs.incrementAndGet();
                progress.print(fault);
                inject(fault);
                sleep(options.phase);
            }
        } while (acquisitions() < options.acquisitions);
        current = tallies.get(Fault.NONE);
        checker.startFault("end");
    }

    private List<Fault> scheduled() {
        List<Fault> schedule = new ArrayList<>();
        for (Fault fault : options.faults) {
            if (fault.appliesTo(lockRedis)) {
                schedule.add(fault);
            }
        }
        return schedule;
    }

    private void inject(Fault fault) throws Exception {
        injecting = true;
        try {
            switch (fault) {
                case NONE:
                    break;
                case WORKER_KILL:
                    // Dead for sure: its holders will never leave, so the checker must not keep them inside.
                    workers.killAndReplace(workers.pickHolder(), prefix -> checker.removeWorker(lockNames(), prefix));
                    break;
                case WORKER_STOP_SHORT:
                    freeze(workers.pickHolder(), Duration.ofMillis(lease() / 6));
                    break;
                case WORKER_STOP_WINDOW:
                    freeze(workers.pickHolder(), Duration.ofMillis(lease() - renewal() / 2));
                    break;
                case WORKER_STOP_LONG:
                    freeze(workers.pickHolder(), Duration.ofMillis(lease() * 3 / 2));
                    break;
                case REDIS_STOP_SHORT:
                    pauseRedis(Duration.ofMillis(commandTimeout() / 2));
                    break;
                case REDIS_STOP_LONG:
                    pauseRedis(Duration.ofMillis(commandTimeout() * 7 / 5));
                    break;
                case CLIENT_KILL_NORMAL:
                    lockRedis.clientKill(false);
                    break;
                case CLIENT_KILL_PUBSUB:
                    lockRedis.clientKill(true);
                    break;
                case DEBUG_SLEEP:
                    debugSleep(Duration.ofMillis(commandTimeout() * 7 / 5));
                    break;
                case PROXY_RESET:
                    lockRedis.resetConnections();
                    break;
                case RESTART_AOF:
                    lockRedis.killAndRestart(true);
                    break;
                case RESTART_EMPTY:
                    lockRedis.killAndRestart(false);
                    break;
                case FLUSHALL:
                    lockRedis.flushAll();
                    break;
                case SENTINEL_FAILOVER_LAGGING:
                    notes.add(fault.label + ": " + lockRedis.failoverToLaggingReplica(Duration.ofMillis(renewal())));
                    break;
                case SENTINEL_FAILOVER:
                case CLUSTER_FAILOVER:
                    lockRedis.failover();
                    break;
                default:
                    throw new IllegalStateException("no injection for " + fault);
            }
        } finally {
            // The hang clock starts when the fault ends: a worker may be silent while it lasts.
            workers.markAllProgress();
            injecting = false;
        }
    }

    private void debugSleep(Duration duration) {
        try {
            lockRedis.debugSleep(duration);
        } catch (RuntimeException e) {
            notes.add("DEBUG SLEEP refused by Redis (" + e.getMessage() + "); the fault did nothing");
        }
    }

    private void pauseRedis(Duration duration) throws InterruptedException {
        lockRedis.pause();
        try {
            sleep(duration);
        } finally {
            lockRedis.resume();
        }
    }

    private void freeze(WorkerProcess worker, Duration duration) throws InterruptedException {
        worker.freeze();
        try {
            sleep(duration);
        } finally {
            worker.thaw();
        }
    }

    private List<String> workerArgs(String id) {
        return List.of(lockRedis.workerUri(), checkerUri, id, Integer.toString(options.threads),
                Long.toString(lease()), String.join(",", locks), Long.toString(System.nanoTime()),
                Long.toString(options.fixedLease == null ? 0 : options.fixedLease.toMillis()),
                options.sections.toString(), Long.toString(options.wait.toMillis()),
                redLockMasters == null ? "-" : String.join(",", redLockMasters.uris()),
                options.localHandOff ? "on" : "off");
    }

    /**
     * Every 250 ms, unless a fault is being injected: a worker silent since the last fault ended
     * for three watchdog timeouts, or for a lease more than the {@code tryAcquire} wait if that is
     * longer, is hung; one that died by itself is a failure as well.
     */
    private void watchWorkers() {
        if (injecting) {
            return;
        }
        FaultTally tally = current;
        long limit = Math.max(3 * lease(), options.wait.toMillis() + lease());
        int found = workers.watch(TimeUnit.MILLISECONDS.toNanos(limit),
                trouble -> notes.add(tally.fault.label + ": " + trouble));
        tally.hungWorkers.addAndGet(found);
    }

    private long acquisitions() {
        long total = 0;
        for (Map.Entry<String, String> counter : checker.counters().entrySet()) {
            if (counter.getKey().endsWith(":" + Checker.ACQUISITIONS)) {
                total += Long.parseLong(counter.getValue());
            }
        }
        return total;
    }

    private List<String> lockNames() {
        List<String> names = new ArrayList<>();
        for (String lock : locks) {
            names.add(lock.substring(lock.indexOf(':') + 1));
        }
        return names;
    }

    private long lease() {
        return options.watchdog.toMillis();
    }

    private long renewal() {
        return lease() / 3;
    }

    /** The library's default for a watchdog timeout set alone: a quarter of it, at most 3 s. */
    private long commandTimeout() {
        return Math.min(3_000, lease() / 4);
    }

    private static void sleep(Duration duration) throws InterruptedException {
        // The fault's length itself: nothing to wait for but time.
        Thread.sleep(duration.toMillis());
    }

    private void close() {
        workers.close();
        checker.close();
    }
}
