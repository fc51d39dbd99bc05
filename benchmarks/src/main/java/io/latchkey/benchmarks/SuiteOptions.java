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
            "Runs every scenario with Latchkey and with Redisson, one JMH fork each, against the same",
            "redis-server(s) it starts itself, and ends with a table per scenario: Latchkey, Redisson,",
            "and the ratio Latchkey / Redisson. Exit status 1 if a Latchkey run failed or either",
            "library broke mutual exclusion. Skipped scenarios (a Latchkey lock kind missing) and",
            "Redisson's own failures (such as a stalled fair queue) are reported, not fatal.",
            "",
            "Options:",
            "  --quick           a smoke run of 1-2 minutes: 1 short iteration each, 6 s watchdog hold",
            "  --only A,B        run only these scenarios (an id, or a prefix such as hot or fair)",
            "  --library L       latchkey or redisson only (default: both)",
            "  --out DIR         where JMH logs, JSON results and summary.txt go",
            "                    (default: ./latchkey-bench-results)",
            "  --list            list the scenarios and exit",
            "  --help            print this and exit",
            "",
            "Scenario ids may also be given as plain arguments, as with --only.",
            "");

    final boolean quick;
    final boolean list;
    final boolean help;
    final List<String> only;
    final Set<Library> libraries;
    final Path out;

    private SuiteOptions(boolean quick, boolean list, boolean help, List<String> only, Set<Library> libraries, Path out) {
        this.quick = quick;
        this.list = list;
        this.help = help;
        this.only = List.copyOf(only);
        this.libraries = libraries;
        this.out = out;
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
                    libraries = EnumSet.of(Library.of(value(args, ++i, arg)));
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
        return new SuiteOptions(quick, list, help, only, libraries, out);
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
