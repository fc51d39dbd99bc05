package io.latchkey.benchmarks;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The benchmark suite's entry point ({@code java -jar latchkey-benchmarks.jar}): starts Redis,
 * runs every selected scenario for Latchkey and for Redisson through JMH's {@link Runner} (one
 * fork per run, so the libraries never share a JVM), and prints a table per scenario. See
 * {@link SuiteOptions#USAGE}.
 */
public final class BenchmarkSuite {

    private static final Pattern EXCEPTION_LINE =
            Pattern.compile("^(Caused by: )?[a-zA-Z_$][\\w.$]*(Exception|Error)(: .*)?$");
    private static final int RED_LOCK_MASTERS = 3;

    private final SuiteOptions options;
    private final PrintStream out;
    private final Path metricsDir;
    private final SuiteReport report = new SuiteReport();
    private final Map<Scenario.Kind, String> missingKinds = new EnumMap<>(Scenario.Kind.class);
    private final Timing timing;

    private BenchmarkSuite(SuiteOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.metricsDir = options.out.resolve("metrics");
        this.timing = options.quick ? Timing.QUICK : Timing.FULL;
    }

    /**
     * Runs the suite and exits with its status: 1 when a Latchkey run failed or either library
     * broke mutual exclusion, 2 for a bad command line, else 0 (skips and Redisson's own failures,
     * which the tables report, included).
     *
     * @param args the command line; {@code --help} lists it
     */
    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        SuiteOptions options;
        try {
            options = SuiteOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("latchkey-benchmarks: " + e.getMessage());
            System.err.println("Try --help.");
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.print(SuiteOptions.USAGE);
            return;
        }
        if (options.list) {
            for (Scenario scenario : Scenario.all()) {
                System.out.printf("  %-20s %s%n", scenario.id, scenario.title);
            }
            return;
        }
        int status;
        try {
            status = new BenchmarkSuite(options, System.out).run();
        } catch (RuntimeException e) {
            System.err.println("latchkey-benchmarks: the suite could not run: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    /** The iteration settings of a full and a quick run. */
    private enum Timing {
        FULL(1, 2, 2, 3, 4, 30_000, 60_000),
        /** In-process (no fork): a JVM start and class loading per run would double a smoke run. */
        QUICK(0, 1, 1, 1, 1, 3_000, 6_000);

        final int forks;

        final int warmups;
        final int warmupSeconds;
        final int measurements;
        final int measurementSeconds;
        final long watchdogLeaseMillis;
        final long watchdogHoldMillis;

        Timing(int forks, int warmups, int warmupSeconds, int measurements, int measurementSeconds, long watchdogLeaseMillis,
                long watchdogHoldMillis) {
            this.forks = forks;
            this.warmups = warmups;
            this.warmupSeconds = warmupSeconds;
            this.measurements = measurements;
            this.measurementSeconds = measurementSeconds;
            this.watchdogLeaseMillis = watchdogLeaseMillis;
            this.watchdogHoldMillis = watchdogHoldMillis;
        }

        /** @return a rough length of one run, JVM start and set-up included, in seconds */
        long estimateSeconds(Scenario scenario) {
            long overhead = forks == 0 ? 1 : 5;
            if (scenario.shape == Scenario.Shape.WATCHDOG) {
                return watchdogHoldMillis / 1000 + 8 + overhead;
            }
            return warmups * warmupSeconds + measurements * measurementSeconds + overhead;
        }
    }

    private int run() {
        List<Scenario> scenarios = options.scenarios();
        boolean needsMasters = scenarios.stream().anyMatch(s -> s.kind == Scenario.Kind.RED);
        long started = System.nanoTime();
        try (RedisServer server = RedisServer.start();
             RedisServers masters = needsMasters ? RedisServers.start(RED_LOCK_MASTERS) : null) {
            prepareOutput();
            System.setProperty(BenchEnvironment.REDIS, server.uri());
            if (masters != null) {
                System.setProperty(BenchEnvironment.RED_LOCK_MASTERS, String.join(",", masters.uris()));
            }
            probeLockKinds(server, masters);
            String environment = environment(server);
            out.println(environment);
            long runs = scenarios.size() * (long) options.libraries.size();
            long estimate = scenarios.stream().mapToLong(timing::estimateSeconds).sum() * options.libraries.size();
            out.printf("%d runs, about %d min %02d s. JMH logs: %s%n%n", runs, estimate / 60, estimate % 60,
                    options.out.toAbsolutePath());

            int index = 0;
            for (Scenario scenario : scenarios) {
                List<Library> order = new ArrayList<>(options.libraries);
                if (timing.forks == 0 && index / order.size() % 2 == 1) {
                    // One JVM for all runs: take turns at going first, so neither always meets a colder JIT.
                    Collections.reverse(order);
                }
                for (Library library : order) {
                    index++;
                    report.add(runOne(scenario, library, index, runs));
                }
            }
            addNotes();
            long seconds = (System.nanoTime() - started) / 1_000_000_000L;
            String text = report.render(environment) + String.format(Locale.ROOT,
                    "%nSuite time: %d min %02d s. Reproduce: java -jar benchmarks/target/latchkey-benchmarks.jar%s%n",
                    seconds / 60, seconds % 60, options.quick ? " --quick" : "");
            out.print(text);
            Files.writeString(options.out.resolve("summary.txt"), text, StandardCharsets.UTF_8);
            return report.failed() ? 1 : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void prepareOutput() throws IOException {
        Files.createDirectories(metricsDir);
        try (DirectoryStream<Path> old = Files.newDirectoryStream(metricsDir, "*.properties")) {
            for (Path file : old) {
                Files.delete(file);
            }
        }
    }

    /** Finds out which of Latchkey's optional lock kinds are on the class path, without taking a lock. */
    private void probeLockKinds(RedisServer server, RedisServers masters) {
        try (LockClient client = LockClient.create(server.uri())) {
            client.getFairLock("latchkey-bench:probe");
        } catch (IllegalStateException e) {
            missingKinds.put(Scenario.Kind.FAIR, e.getMessage());
        }
        if (masters != null) {
            try (LockClient client = LockClient.create(LockConfig.builder().redLockAddresses(masters.uris()).build())) {
                client.getRedLock("latchkey-bench:probe");
            } catch (IllegalStateException e) {
                missingKinds.put(Scenario.Kind.RED, e.getMessage());
            }
        }
    }

    private RunOutcome runOne(Scenario scenario, Library library, long index, long runs) {
        String runId = scenario.id + "-" + library.id;
        out.printf("[%2d/%d] %-20s %-9s ", index, runs, scenario.id, library.title);
        out.flush();
        if (library == Library.LATCHKEY && missingKinds.containsKey(scenario.kind)) {
            String why = missingKinds.get(scenario.kind);
            out.println("skipped: " + why);
            return RunOutcome.skipped(scenario, library, why);
        }
        Path log = options.out.resolve(runId + ".log");
        Map<String, String> properties = runProperties(runId);
        ChainedOptionsBuilder jmh = new OptionsBuilder()
                .include(scenario.includePattern())
                .param("library", library.id)
                .threads(scenario.threads)
                .forks(timing.forks)
                .jvmArgs("-Xms1g", "-Xmx1g")
                .jvmArgsAppend(properties.entrySet().stream().map(p -> "-D" + p.getKey() + "=" + p.getValue())
                        .toArray(String[]::new))
                .shouldFailOnError(true)
                .output(log.toString())
                .result(options.out.resolve(runId + ".json").toString())
                .resultFormat(ResultFormatType.JSON);
        scenario.params.forEach(jmh::param);
        if (scenario.shape == Scenario.Shape.THROUGHPUT) {
            jmh.warmupIterations(timing.warmups)
                    .warmupTime(TimeValue.seconds(timing.warmupSeconds))
                    .measurementIterations(timing.measurements)
                    .measurementTime(TimeValue.seconds(timing.measurementSeconds));
        } else {
            jmh.warmupIterations(0).measurementIterations(1);
        }

        if (timing.forks == 0) {
            properties.forEach(System::setProperty);
        }
        long began = System.nanoTime();
        RunOutcome outcome;
        try {
            Collection<RunResult> results = new Runner(jmh.build()).run();
            long seconds = (System.nanoTime() - began) / 1_000_000_000L;
            Properties metrics = readMetrics(runId);
            if (results.isEmpty()) {
                outcome = RunOutcome.failed(scenario, library, "JMH ran nothing; see " + log, metrics, seconds);
            } else {
                RunResult result = results.iterator().next();
                outcome = RunOutcome.ok(scenario, library, result.getPrimaryResult().getScore(),
                        result.getPrimaryResult().getScoreError(), metrics, seconds);
            }
        } catch (RunnerException | RuntimeException e) {
            long seconds = (System.nanoTime() - began) / 1_000_000_000L;
            Properties metrics = readMetrics(runId);
            String why = Optional.ofNullable(metrics.getProperty(TrialMetrics.Keys.VIOLATION))
                    .orElseGet(() -> failureIn(log).orElse(String.valueOf(e)));
            outcome = RunOutcome.failed(scenario, library, why + " (log: " + log + ")", metrics, seconds);
        }
        printOutcome(outcome);
        return outcome;
    }

    /** @return the system properties a run's JVM needs: Redis, where metrics go, watchdog sizes */
    private Map<String, String> runProperties(String runId) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String key : List.of(BenchEnvironment.REDIS, BenchEnvironment.RED_LOCK_MASTERS)) {
            String value = System.getProperty(key);
            if (value != null) {
                properties.put(key, value);
            }
        }
        properties.put(BenchEnvironment.METRICS_DIR, metricsDir.toAbsolutePath().toString());
        properties.put(BenchEnvironment.RUN_ID, runId);
        properties.put(BenchEnvironment.WATCHDOG_LEASE_MILLIS, Long.toString(timing.watchdogLeaseMillis));
        properties.put(BenchEnvironment.WATCHDOG_HOLD_MILLIS, Long.toString(timing.watchdogHoldMillis));
        properties.put("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        return properties;
    }

    private Properties readMetrics(String runId) {
        Properties metrics = new Properties();
        Path file = metricsDir.resolve(runId + ".properties");
        if (Files.exists(file)) {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                metrics.load(in);
            } catch (IOException e) {
                out.println("cannot read " + file + ": " + e);
            }
        }
        return metrics;
    }

    /** @return the first exception JMH logged for the failed run, and its root cause if different */
    private static Optional<String> failureIn(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            String first = null;
            String root = null;
            for (String line : lines) {
                if (EXCEPTION_LINE.matcher(line.strip()).matches()) {
                    if (first == null) {
                        first = line.strip();
                    } else if (line.strip().startsWith("Caused by: ")) {
                        root = line.strip();
                    }
                }
            }
            if (first == null) {
                return Optional.empty();
            }
            return Optional.of(root == null ? first : first + "; " + root);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private void printOutcome(RunOutcome outcome) {
        switch (outcome.status) {
            case OK:
                String score = outcome.scenario.shape == Scenario.Shape.WATCHDOG
                        ? String.format(Locale.ROOT, "%,.0f commands to Redis during the hold",
                                outcome.metric(TrialMetrics.Keys.REDIS_COMMANDS).orElse(Double.NaN))
                        : String.format(Locale.ROOT, "%,.0f %s/s", outcome.score.getAsDouble(), outcome.scenario.unit);
                out.printf("%s  (%d s)%n", score, outcome.seconds);
                break;
            case FAILED:
                out.printf("FAILED: %s  (%d s)%n", outcome.message, outcome.seconds);
                break;
            default:
                out.println("skipped: " + outcome.message);
        }
    }

    private void addNotes() {
        missingKinds.forEach((kind, why) -> report.note("Latchkey's " + kind.name().toLowerCase(Locale.ROOT)
                + " lock scenarios were skipped: " + why));
        report.note("Redisson runs with its defaults, except the watchdog lease (as Latchkey's) and "
                + RedissonBackend.SUBSCRIPTIONS_PER_CONNECTION + " channels per subscription connection (default 5):"
                + " its fair lock subscribes one channel per waiter, and 1,000 waiters do not fit in 50 × 5."
                + " Both libraries use Netty's native epoll transport (" + (io.netty.channel.epoll.Epoll.isAvailable()
                ? "available here" : "not available here: both fall back to NIO") + ").");
        report.note("Redisson's RedLock is RedissonRedLock over one RedissonClient per master; Redisson deprecates"
                + " it, but it is the RedLock Redisson ships.");
        report.note("Wait times are each acquisition's time in lock() (fair-queue: from a release to the next grant),"
                + " measurement iterations only; CPU and Redis figures are deltas over the same iterations"
                + " (client CPU = the benchmark JVM's whole process).");
        report.note(String.format(Locale.ROOT, "JMH: %d warm-up × %d s, %d measurement × %d s, %s;"
                        + " watchdog: lease %d s, hold %d s.", timing.warmups, timing.warmupSeconds, timing.measurements,
                timing.measurementSeconds, timing.forks == 0 ? "no fork (all runs in the suite's JVM)" : "1 fork per run",
                timing.watchdogLeaseMillis / 1000, timing.watchdogHoldMillis / 1000));
        if (options.quick) {
            report.note("--quick: a smoke run, both libraries in one JVM, one short iteration each: the numbers"
                    + " are indicative only; run without --quick for the real ones.");
        }
    }

    private static String environment(RedisServer server) {
        Runtime runtime = Runtime.getRuntime();
        return String.format(Locale.ROOT,
                "%s | %d cores, %s %s (%s) | JDK %s (%s) | redis-server %s | Latchkey %s, Redisson %s, Lettuce %s, JMH %s",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                runtime.availableProcessors(), System.getProperty("os.name"), System.getProperty("os.version"),
                System.getProperty("os.arch"), System.getProperty("java.runtime.version"), System.getProperty("java.vm.name"),
                server.version(), version("io.latchkey", "lock-core"), version("org.redisson", "redisson"),
                version("io.lettuce", "lettuce-core"), version("org.openjdk.jmh", "jmh-core"));
    }

    private static String version(String group, String artifact) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = BenchmarkSuite.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return "(dev)";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }
}
