package io.latchkey.benchmarks;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The suite's command line, parsed. Immutable. */
final class SuiteOptions {

    static final String USAGE = String.join("\n",
            "Usage: java -jar latchkey-benchmarks.jar [options] [scenario...]",
            "",
            "Runs every scenario with Latchkey, Redisson and (plain-lock scenarios only) Spring",
            "Integration's RedisLockRegistry, 3 JMH forks each, the libraries alternating fork by fork,",
            "against the same redis-server(s) it starts itself, and ends with a table per scenario: each",
            "library's mean ± 95 % confidence interval across forks, and Latchkey's ratio to each",
            "comparator, with a verdict only where the intervals do not overlap (else \"within noise\").",
            "The hot-lock scenarios also run java.util.concurrent's ReentrantLock, fair and not, over the",
            "same critical section and threads: the in-JVM limit, and Latchkey's ratio to it.",
            "Exit status 1 if a Latchkey run failed or any library broke mutual exclusion. Skipped",
            "scenarios (a Latchkey lock kind missing) and the comparators' own failures (such as a",
            "stalled fair queue) are reported, not fatal.",
            "",
            "Options:",
            "  --quick           a smoke run: 1 fork each in the suite's JVM, 2 iterations of 1 s,",
            "                    6 s watchdog hold (a few minutes for the whole suite)",
            "  --forks N         forks per library and scenario (default 3; 1 with --quick)",
            "  --only A,B        run only these scenarios (an id, or a prefix such as hot or fair)",
            "  --library L,M     only these of latchkey, redisson, spring, jvm-fair, jvm, lettuce (default:",
            "                    all; jvm-fair and jvm are the in-JVM ReentrantLocks, lettuce the Redis",
            "                    ceiling: Latchkey's two scripts over Lettuce with no client around them)",
            "  --out DIR         where JMH logs, JSON results and summary.txt go",
            "                    (default: ./latchkey-bench-results)",
            "  --list            list the scenarios and exit",
            "  --help            print this and exit",
            "",
            "Scenario ids may also be given as plain arguments, as with --only.",
            "");

    /** Three forks give an interval at all (two degrees of freedom); more narrow it. */
    static final int DEFAULT_FORKS = 3;

    final boolean quick;
    final boolean list;
    final boolean help;
    final List<String> only;
    final Set<Library> libraries;
    final Path out;
    /** Forks per library and scenario. */
    final int forks;
    private final List<String> args;

    private SuiteOptions(boolean quick, boolean list, boolean help, List<String> only, Set<Library> libraries, Path out,
            int forks, List<String> args) {
        this.quick = quick;
        this.list = list;
        this.help = help;
        this.only = List.copyOf(only);
        this.libraries = libraries;
        this.out = out;
        this.forks = forks;
        this.args = List.copyOf(args);
    }

    /** @return the options as given, to repeat the run: empty, or a space and the arguments */
    String commandLine() {
        return args.isEmpty() ? "" : " " + String.join(" ", args);
    }

    /**
     * @param args the command line
     * @return the options
     * @throws IllegalArgumentException for an unknown option, a missing value, or an unknown scenario
     */
    static SuiteOptions parse(String... args) {
        boolean quick = false;
        boolean list = false;
        boolean help = false;
        List<String> only = new ArrayList<>();
        Set<Library> libraries = EnumSet.allOf(Library.class);
        Path out = Paths.get("latchkey-bench-results");
        Integer forks = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick":
                    quick = true;
                    break;
                case "--list":
                    list = true;
                    break;
                case "--help":
                case "-h":
                    help = true;
                    break;
                case "--only":
                    only.addAll(split(value(args, ++i, arg)));
                    break;
                case "--library":
                    libraries = EnumSet.noneOf(Library.class);
                    for (String library : split(value(args, ++i, arg))) {
                        libraries.add(Library.of(library));
                    }
                    break;
                case "--forks":
                    forks = forks(value(args, ++i, arg));
                    break;
                case "--out":
                    out = Paths.get(value(args, ++i, arg));
                    break;
                default:
                    if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option: " + arg);
                    }
                    only.addAll(split(arg));
            }
        }
        for (String filter : only) {
            if (Scenario.all().stream().noneMatch(s -> s.matches(filter))) {
                throw new IllegalArgumentException("no scenario matches " + filter + "; --list shows them");
            }
        }
        if (libraries.isEmpty()) {
            throw new IllegalArgumentException("--library needs at least one library");
        }
        return new SuiteOptions(quick, list, help, only, libraries, out, forks != null ? forks : quick ? 1 : DEFAULT_FORKS,
                List.of(args));
    }

    private static int forks(String value) {
        try {
            int forks = Integer.parseInt(value);
            if (forks >= 1) {
                return forks;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--forks must be a whole number of at least 1: " + value);
    }

    /** @return the scenarios selected, in suite order */
    List<Scenario> scenarios() {
        List<Scenario> selected = new ArrayList<>();
        for (Scenario scenario : Scenario.all()) {
            if (only.isEmpty() || only.stream().anyMatch(scenario::matches)) {
                selected.add(scenario);
            }
        }
        return selected;
    }

    private static List<String> split(String value) {
        List<String> parts = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                parts.add(part.strip());
            }
        }
        return parts;
    }

    private static String value(String[] args, int index, String name) {
        if (index >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[index];
    }
}
