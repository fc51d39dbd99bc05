package io.latchkey.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The fault harness's command line, parsed and validated. Immutable. */
final class FaultOptions {

    /** A command line the harness cannot run; the message says why. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static final long LONG_RUN_ACQUISITIONS = 1_000_000;
    /**
     * The long run's locks, threads and critical sections: about 300 acquisitions/s under the
     * faults on 2 shared cores, so an hour for the million (the short run's mix manages about 50:
     * its 3 % of holds longer than the renewal period keep their lock, and the threads that
     * picked it, waiting for most of a second). With 2.5 % long holds, 30 threads and 48 locks,
     * about 6 threads are inside a long critical section at any moment, so a pause or a restart
     * nearly always finds some inside.
     */
    static final int LONG_RUN_LOCKS = 48;
    static final int LONG_RUN_THREADS = 10;
    static final CriticalSections LONG_RUN_SECTIONS = new CriticalSections(945, 30, 25);

    static final String USAGE = String.join("\n",
            "Usage: java -jar latchkey-faults.jar [options]",
            "",
            "Worker JVMs contend on a few locks (plain, fair, read-write, RedLock) while the harness",
            "injects one fault after another. A separate checker Redis sees every hold from outside",
            "the lock: an entry while a holder that excludes it is inside is an overlap (readers",
            "exclude writers only), and a resource guarded by fencing tokens refuses stale writers",
            "and readers. Prints a table per fault; exits with 1 if a violation is not a known limit",
            "of that fault (see the README, \"Fault harness\").",
            "",
            "Options:",
            "  --workers N        worker JVMs                                      (default 3)",
            "  --threads N        lock threads per worker                          (default 2)",
            "  --locks N          lock names, their kinds in turn from --kinds     (default 4)",
            "  --kinds K,K        plain | fair | read-write | redlock: a read-write lock's holds read",
            "                     (3 in 4) or write; a RedLock takes 3 masters, the lock's Redis and",
            "                     two more, unfaulted (single topology only)",
            "                     (default plain,fair,read-write,redlock; without redlock on sentinel",
            "                     and cluster)",
            "  --no-local-hand-off  the workers' clients without local hand-off (it is on by default:",
            "                     plain locks, shared reads, RedLocks)",
            "  --watchdog D       watchdog timeout (the lease), e.g. 2s            (default 2s)",
            "  --phase D          how long to watch after each fault               (default 3s)",
            "  --wait D           the wait of the tryAcquire(wait) calls (half of them), longer",
            "                     than every outage the harness makes              (default 10s)",
            "  --acquisitions N   repeat the schedule until N holds were granted   (default: once)",
            "  --sections E,S,L   critical sections per 1000 holds: empty, 1-40 ms,",
            "                     longer than the renewal period                   (default " + CriticalSections.DEFAULT + ")",
            "  --long             the long run, about an hour on 2 cores: --acquisitions " + LONG_RUN_ACQUISITIONS,
            "                     --locks " + LONG_RUN_LOCKS + " --threads " + LONG_RUN_THREADS
                    + " --sections " + LONG_RUN_SECTIONS + " (later options override)",
            "  --fixed-lease D    holds take this fixed lease instead of the watchdog's: shorter than",
            "                     the critical sections, it shows what the checks catch",
            "  --faults A,B       only these faults (names as in the table's first column's key)",
            "  --topology T       single | sentinel (a master, a replica, 3 Sentinels) | cluster",
            "                     (3 masters, a replica each); each with a failover (default single)",
            "  --redis URI        use this Redis for the locks (redis://host:port); faults that",
            "                     need its process (SIGSTOP, restarts) are skipped",
            "  --checker URI      use this Redis as the checker (it must not be the lock's)",
            "  --help             this text",
            "",
            "Fault keys: " + faultKeys(),
            "");

    final int workers;
    final int threads;
    final int locks;
    final Duration watchdog;
    final Duration phase;
    final Duration wait;
    final Duration fixedLease;
    final CriticalSections sections;
    final long acquisitions;
    final Set<Fault> faults;
    final List<LockKind> kinds;
    final boolean localHandOff;
    final String redisUri;
    final Topology topology;
    final String checkerUri;
    final boolean help;

    private FaultOptions(Builder b) {
        this.workers = b.workers;
        this.threads = b.threads;
        this.locks = b.locks;
        this.watchdog = b.watchdog;
        this.phase = b.phase;
        this.wait = b.wait;
        this.fixedLease = b.fixedLease;
        this.sections = b.sections;
        this.acquisitions = b.acquisitions;
        this.faults = b.faults;
        this.kinds = b.kinds;
        this.localHandOff = b.localHandOff;
        this.redisUri = b.redisUri;
        this.topology = b.topology;
        this.checkerUri = b.checkerUri;
        this.help = b.help;
    }

    static FaultOptions parse(String... args) {
        Builder b = new Builder();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--help":
                    b.help = true;
                    break;
                case "--long":
                    b.acquisitions = LONG_RUN_ACQUISITIONS;
                    b.locks = LONG_RUN_LOCKS;
                    b.threads = LONG_RUN_THREADS;
                    b.sections = LONG_RUN_SECTIONS;
                    break;
                case "--locks":
                    b.locks = positive(option, value(args, ++i, option));
                    break;
                case "--workers":
                    b.workers = positive(option, value(args, ++i, option));
                    break;
                case "--threads":
                    b.threads = positive(option, value(args, ++i, option));
                    break;
                case "--watchdog":
                    b.watchdog = duration(option, value(args, ++i, option));
                    break;
                case "--phase":
                    b.phase = duration(option, value(args, ++i, option));
                    break;
                case "--wait":
                    b.wait = duration(option, value(args, ++i, option));
                    break;
                case "--acquisitions":
                    b.acquisitions = positive(option, value(args, ++i, option));
                    break;
                case "--fixed-lease":
                    b.fixedLease = duration(option, value(args, ++i, option));
                    break;
                case "--sections":
                    b.sections = sections(option, value(args, ++i, option));
                    break;
                case "--faults":
                    b.faults = faults(value(args, ++i, option));
                    break;
                case "--kinds":
                    b.kinds = kinds(value(args, ++i, option));
                    break;
                case "--no-local-hand-off":
                    b.localHandOff = false;
                    break;
                case "--redis":
                    b.redisUri = value(args, ++i, option);
                    break;
                case "--topology":
                    b.topology = topology(value(args, ++i, option));
                    break;
                case "--checker":
                    b.checkerUri = value(args, ++i, option);
                    break;
                default:
                    throw new UsageException("unknown option: " + option);
            }
        }
        if (b.wait.toMillis() <= 0) {
            throw new UsageException("--wait must be positive: " + b.wait.toMillis() + "ms");
        }
        if (b.watchdog.toMillis() < 600) {
            throw new UsageException("--watchdog must be at least 600ms: " + b.watchdog.toMillis() + "ms");
        }
        if (b.fixedLease != null && b.fixedLease.isZero()) {
            throw new UsageException("--fixed-lease must be positive: " + b.fixedLease.toMillis() + "ms");
        }
        if (b.redisUri != null && b.topology != Topology.SINGLE) {
            throw new UsageException("--topology " + b.topology.key() + " starts its own servers; it cannot be given --redis");
        }
        if (b.kinds == null) {
            b.kinds = b.topology == Topology.SINGLE ? List.of(LockKind.values())
                    : List.of(LockKind.PLAIN, LockKind.FAIR, LockKind.READ_WRITE);
        } else if (b.kinds.contains(LockKind.REDLOCK) && b.topology != Topology.SINGLE) {
            throw new UsageException("--kinds redlock needs independent masters: --topology single, not "
                    + b.topology.key());
        }
        if (b.redisUri != null && b.redisUri.equals(b.checkerUri)) {
            throw new UsageException("--checker must not be the lock's Redis: " + b.checkerUri);
        }
        return new FaultOptions(b);
    }

    /** @return the fault's key on the command line, such as {@code worker-stop-long} */
    static String key(Fault fault) {
        return fault.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static String faultKeys() {
        List<String> keys = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            keys.add(key(fault));
        }
        return String.join(", ", keys);
    }

    private static Set<Fault> faults(String list) {
        Set<Fault> chosen = EnumSet.noneOf(Fault.class);
        for (String name : list.split(",")) {
            Fault match = null;
            for (Fault fault : Fault.values()) {
                if (key(fault).equals(name.trim())) {
                    match = fault;
                }
            }
            if (match == null) {
                throw new UsageException("--faults: no fault named '" + name + "'; the faults are " + faultKeys());
            }
            chosen.add(match);
        }
        return chosen;
    }

    private static List<LockKind> kinds(String list) {
        List<LockKind> kinds = new ArrayList<>();
        for (String name : list.split(",")) {
            LockKind kind = LockKind.of(name.trim());
            if (kind == null) {
                throw new UsageException("--kinds: no lock kind named '" + name + "'; the kinds are plain, fair, "
                        + "read-write, redlock");
            }
            kinds.add(kind);
        }
        return List.copyOf(kinds);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    private static Topology topology(String value) {
        for (Topology topology : Topology.values()) {
            if (topology.key().equals(value)) {
                return topology;
            }
        }
        throw new UsageException("--topology must be single, sentinel or cluster: " + value);
    }

    private static CriticalSections sections(String option, String value) {
        try {
            return CriticalSections.parse(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + ": " + e.getMessage());
        }
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " must be a positive whole number: " + value);
    }

    private static Duration duration(String option, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " must be a duration such as 2s or 500ms: " + value);
    }

    private static final class Builder {
        int workers = 3;
        int threads = 2;
        int locks = 4;
        Duration watchdog = Duration.ofSeconds(2);
        Duration phase = Duration.ofSeconds(3);
        Duration wait = Duration.ofSeconds(10);
        Duration fixedLease;
        CriticalSections sections = CriticalSections.DEFAULT;
        long acquisitions = 0;
        Set<Fault> faults = EnumSet.allOf(Fault.class);
        /** Null until parsed: the default depends on the topology. */
        List<LockKind> kinds;
        boolean localHandOff = true;
        String redisUri;
        Topology topology = Topology.SINGLE;
        String checkerUri;
        boolean help;
    }
}
