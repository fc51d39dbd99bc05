package io.latchkey.faults;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker JVM of the fault harness: a {@link LockClient} whose threads take the harness's
 * locks over and over, each hold marked on the {@link Checker} and writing to its fenced
 * resource, until the harness ends the process. Each acquisition is one of three calls, drawn
 * per acquisition ({@link LockCall}): half are {@code tryAcquire(wait)} with a wait longer than
 * every outage the harness makes, the rest {@code acquire()} and a few {@code tryAcquire(0)}, so
 * that the harness can tell the exceptions of callers who asked to wait from those of callers
 * bounded by one command timeout.
 *
 * <p>It reports to the harness on standard output, one event a line ({@link WorkerEvent}).
 *
 * <p>A read-write lock's acquisition reads (shared) three times in four and writes otherwise,
 * drawn afresh each time, so that a worker's threads often read together on its one read hold
 * in Redis (local hand-off's shared reads) and writers come between them.
 *
 * <p>Arguments: the lock Redis URI, the checker Redis URI, the worker id, the thread count, the
 * watchdog timeout in ms, the locks ({@code kind:name,...}, the kinds as {@link LockKind#key()}),
 * a random seed, a fixed lease in ms to take instead of the watchdog's (0: the watchdog's), the
 * critical sections' mix ({@link CriticalSections}, {@code empty,short,long} per 1,000 holds), the
 * wait of the {@code tryAcquire(wait)} calls in ms, the RedLock's masters ({@code uri,uri,...},
 * or {@code -} for none), and {@code on} or {@code off} for local hand-off.
 */
public final class FaultWorker {

    private static final Duration ERROR_BACKOFF = Duration.ofMillis(100);
    /** Per 100 acquisitions: this many {@code tryAcquire(wait)}, then {@code acquire()} up to the second. */
    private static final int WAIT_SHARE = 50;
    private static final int LOCK_SHARE_END = 85;
    /** Per 4 acquisitions of a read-write lock: this many read. */
    private static final int READS_IN_FOUR = 3;

    private final Checker checker;
    private final String id;
    private final List<WorkerLock> locks = new ArrayList<>();
    private final Duration watchdog;
    private final Duration fixedLease;
    private final Duration wait;
    private final CriticalSections sections;
    private final PrintStream out;

    private FaultWorker(LockClient client, Checker checker, String id, String locks, Duration watchdog,
            Duration fixedLease, Duration wait, CriticalSections sections, PrintStream out) {
        this.checker = checker;
        this.id = id;
        this.watchdog = watchdog;
        this.fixedLease = fixedLease;
        this.wait = wait;
        this.sections = sections;
        this.out = out;
        for (String lock : locks.split(",")) {
            String[] kindAndName = lock.split(":", 2);
            this.locks.add(WorkerLock.of(client, LockKind.of(kindAndName[0]), kindAndName[1]));
        }
    }

    /**
     * One of the harness's locks as this worker takes it.
     *
     * @param readLock a read-write lock's read side; null for the other kinds
     */
    private record WorkerLock(String name, LockKind kind, DistributedLock writeLock, DistributedLock readLock) {

        static WorkerLock of(LockClient client, LockKind kind, String name) {
            switch (kind) {
                case PLAIN:
                    return new WorkerLock(name, kind, client.getLock(name), null);
                case FAIR:
                    return new WorkerLock(name, kind, client.getFairLock(name), null);
                case READ_WRITE:
                    DistributedReadWriteLock readWrite = client.getReadWriteLock(name);
                    return new WorkerLock(name, kind, readWrite.writeLock(), readWrite.readLock());
                case REDLOCK:
                    return new WorkerLock(name, kind, client.getRedLock(name), null);
                default:
                    throw new IllegalArgumentException("no lock kind " + kind);
            }
        }
    }

    /**
     * Runs the worker until the process is killed.
     *
     * @param args see the class comment
     * @throws Exception if the worker cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 12) {
            System.err.println("usage: FaultWorker <lock-uri> <checker-uri> <id> <threads> <watchdog-ms> <locks> <seed> "
                    + "<fixed-lease-ms> <sections: empty,short,long per 1000> <wait-ms> <redlock-uris|-> <on|off>");
            System.exit(2);
        }
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        Duration watchdog = Duration.ofMillis(Long.parseLong(args[4]));
        LockConfig.Builder builder = LockConfig.builder().watchdogTimeout(watchdog);
        if (args[0].startsWith(LockRedis.CLUSTER_PREFIX)) {
            builder.clusterAddresses(args[0].substring(LockRedis.CLUSTER_PREFIX.length()).split(","));
        } else {
            builder.address(args[0]);
        }
        if (!args[10].equals("-")) {
            builder.redLockAddresses(args[10].split(","));
        }
        if (args[11].equals("off")) {
            builder.noLocalHandOff();
        }
        LockConfig config = builder.build();
        LockClient client = connect(config);
        Checker checker = new Checker(args[1]);
        long fixedLease = Long.parseLong(args[7]);
        FaultWorker worker = new FaultWorker(client, checker, args[2], args[5], watchdog,
                fixedLease == 0 ? null : Duration.ofMillis(fixedLease), Duration.ofMillis(Long.parseLong(args[9])),
                CriticalSections.parse(args[8]), out);
        int threads = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[6]);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            SplittableRandom random = new SplittableRandom(seed * 31 + t);
            int index = t;
            Thread thread = new Thread(() -> worker.loop(index, random), "fault-worker-" + t);
            running.add(thread);
        }
        worker.report(-1, WorkerEvent.READY, "");
        running.forEach(Thread::start);
        for (Thread thread : running) {
            thread.join();
        }
    }

    /** A cold JVM on a loaded machine may need several tries for its first handshake. */
    private static LockClient connect(LockConfig config) {
        for (int attempt = 1; ; attempt++) {
            try {
                return LockClient.create(config);
            } catch (LockException e) {
                if (attempt == 10) {
                    throw e;
                }
                LockSupport.parkNanos(ERROR_BACKOFF.toNanos());
            }
        }
    }

    private void loop(int thread, SplittableRandom random) {
        String holderPrefix = id + ":" + thread + ":";
        for (long seq = 0; ; seq++) {
            WorkerLock lock = locks.get(random.nextInt(locks.size()));
            boolean shared = lock.readLock() != null && random.nextInt(4) < READS_IN_FOUR;
            LockCall call = nextCall(random);
            long began = System.nanoTime();
            Optional<LockHold> hold;
            try {
                hold = acquire(shared ? lock.readLock() : lock.writeLock(), call);
            } catch (LockException e) {
                boolean waitOver = call == LockCall.WAIT && System.nanoTime() - began >= wait.toNanos();
                reportException(thread, waitOver ? LockCall.WAIT_OVER : call, e);
                LockSupport.parkNanos(ERROR_BACKOFF.toNanos());
                continue;
            } catch (InterruptedException e) {
                return;
            }
            if (hold.isEmpty()) {
                report(thread, WorkerEvent.GAVE_UP, "");
                continue;
            }
            report(thread, WorkerEvent.ACQUIRED, Long.toString(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - began)));
            holdAndRelease(thread, lock, shared, holderPrefix + seq, hold.get(), random);
        }
    }

    private static LockCall nextCall(SplittableRandom random) {
        int draw = random.nextInt(100);
        return draw < WAIT_SHARE ? LockCall.WAIT : draw < LOCK_SHARE_END ? LockCall.LOCK : LockCall.ZERO_WAIT;
    }

    private Optional<LockHold> acquire(DistributedLock lock, LockCall call) throws InterruptedException {
        switch (call) {
            case WAIT:
                return fixedLease == null ? lock.tryAcquire(wait) : lock.tryAcquire(wait, fixedLease);
            case LOCK:
                return Optional.of(fixedLease == null ? lock.acquire() : lock.acquire(fixedLease));
            case ZERO_WAIT:
                return fixedLease == null ? lock.tryAcquire(Duration.ZERO) : lock.tryAcquire(Duration.ZERO, fixedLease);
            default:
                throw new IllegalArgumentException("not an acquisition: " + call);
        }
    }

    private void holdAndRelease(int thread, WorkerLock lock, boolean shared, String holder, LockHold hold,
            SplittableRandom random) {
        String name = lock.name();
        try {
            long token = hold.fencingToken();
            Checker.Entry entry = checker.enter(name, lock.kind(), shared, holder, token);
            report(thread, WorkerEvent.INSIDE, entry.othersInside() + " " + entry.write());
            if (work(random, hold)) {
                // Told the lease is lost: stop at once, without the last write, as the README's
                // fencing example does; the checker counts the overlaps of holders not yet told.
                checker.exit(name, holder);
                report(thread, WorkerEvent.OUTSIDE, "");
                return;
            }
            checker.write(name, lock.kind(), shared, holder, token);
            checker.exit(name, holder);
            report(thread, WorkerEvent.OUTSIDE, "");
        } catch (RuntimeException e) {
            report(thread, WorkerEvent.CHECKER_FAILED, String.valueOf(e));
        } finally {
            try {
                hold.close();
            } catch (LeaseLostException e) {
                report(thread, WorkerEvent.LEASE_LOST, "");
            } catch (LockException e) {
                reportException(thread, LockCall.RELEASE, e);
            }
        }
    }

    /**
     * The critical section's work, as long as {@link CriticalSections} draws: nothing, a few
     * milliseconds, or longer than the renewal period (a third of the watchdog timeout). A
     * watchdog hold's work ends early when its lease-loss notice comes; a fixed lease's holder
     * works on regardless (--fixed-lease shows a holder that outlives its lease).
     *
     * @return true if the work ended because the lease was lost
     */
    private boolean work(SplittableRandom random, LockHold hold) {
        long millis = sections.nextMillis(random, watchdog.toMillis() / 3);
        if (millis == 0) {
            return false;
        }
        if (fixedLease != null) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
            return false;
        }
        try {
            hold.leaseLost().get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException worked) {
            return false;
        } catch (ExecutionException unexpected) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Reports the call, the exception's type and its message's first line, which the harness keeps as an example. */
    private void reportException(int thread, LockCall call, LockException e) {
        String message = String.valueOf(e.getMessage());
        int lineEnd = message.indexOf('\n');
        report(thread, WorkerEvent.EXCEPTION, call.code + " " + e.getClass().getSimpleName() + " "
                + (lineEnd < 0 ? message : message.substring(0, lineEnd)));
    }

    /** Prints {@code <code> <thread> [detail]}; thread -1 for the worker as a whole. */
    private void report(int thread, WorkerEvent event, String detail) {
        synchronized (out) {
            out.print(event.code);
            out.print(' ');
            out.print(thread);
            if (!detail.isEmpty()) {
                out.print(' ');
                out.print(detail);
            }
            out.print('\n');
            out.flush();
        }
    }
}
