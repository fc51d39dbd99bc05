package io.latchkey.benchmarks;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * runs every selected scenario for Latchkey and its comparators (Redisson, and Spring where the
 * scenario allows) through JMH's {@link Runner}, several forks per library, the libraries taking
 * turns fork by fork (so that a drift of the machine over the run spreads over all of them), and
 * prints a table per scenario with the mean and confidence interval across forks. See
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

    /** The iteration settings of a full and a quick run; how many forks comes from {@link SuiteOptions#forks}. */
    private enum Timing {
        FULL(1, 2, 2, 3, 4, 30_000, 60_000),
        /**
         * In-process (JMH's "no fork"): a JVM start and class loading per run would double a smoke
         * run. Two measurement iterations, so that one fork still shows an (understated) interval.
         */
        QUICK(0, 1, 1, 2, 1, 3_000, 6_000);

        /** 1: each run in a JVM of its own; 0: in the suite's JVM. */
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
            String environment = SuiteEnvironment.describe(server);
            out.println(environment);
            long runs = scenarios.stream().mapToLong(s -> rounds(s) * (long) libraries(s).size()).sum();
            long estimate = scenarios.stream().mapToLong(s -> timing.estimateSeconds(s) * rounds(s) * libraries(s).size())
                    .sum();
            out.printf("%d runs, about %d min %02d s. JMH logs: %s%n%n", runs, estimate / 60, estimate % 60,
                    options.out.toAbsolutePath());

            int index = 0;
            int turn = 0;
            for (Scenario scenario : scenarios) {
                Map<Library, List<RunOutcome.Fork>> forks = new EnumMap<>(Library.class);
                Map<Library, RunOutcome> ended = new EnumMap<>(Library.class);
                Map<Library, Long> seconds = new EnumMap<>(Library.class);
                int rounds = rounds(scenario);
                for (int round = 0; round < rounds; round++) {
                    List<Library> order = new ArrayList<>(libraries(scenario));
                    // Take turns at going first, so that no library always meets a colder machine or JIT.
                    Collections.rotate(order, -(turn++ % order.size()));
                    for (Library library : order) {
                        index++;
                        if (ended.containsKey(library)) {
                            continue;
                        }
                        Attempt attempt = runOne(scenario, library, round, rounds, index, runs);
                        seconds.merge(library, attempt.seconds, Long::sum);
                        if (attempt.fork == null) {
                            ended.put(library, attempt.failure);
                        } else {
                            forks.computeIfAbsent(library, l -> new ArrayList<>()).add(attempt.fork);
                        }
                    }
                }
                for (Library library : libraries(scenario)) {
                    report.add(ended.containsKey(library) ? ended.get(library)
                            : RunOutcome.ok(scenario, library, forks.get(library), seconds.get(library)));
                }
            }
            addNotes();
            long seconds = (System.nanoTime() - started) / 1_000_000_000L;
            String text = report.render(environment) + String.format(Locale.ROOT,
                    "%nSuite time: %d min %02d s. Reproduce: java%s -jar benchmarks/target/latchkey-benchmarks.jar%s%n",
                    seconds / 60, seconds % 60,
                    LatchkeyBackend.LOCAL_HAND_OFF ? "" : " -D" + LatchkeyBackend.LOCAL_HAND_OFF_PROPERTY + "=false",
                    options.commandLine());
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

    /** @return how many forks each library gets in this scenario: the watchdog's count is not noisy, one does */
    private int rounds(Scenario scenario) {
        return scenario.shape == Scenario.Shape.WATCHDOG ? 1 : options.forks;
    }

    /** @return the libraries selected that can express this scenario, in column order */
    private List<Library> libraries(Scenario scenario) {
        List<Library> libraries = new ArrayList<>();
        Library.stream(scenario).filter(options.libraries::contains).forEach(libraries::add);
        return libraries;
    }

    /** One fork's result, or the outcome that ends the library's runs of a scenario (a failure, a skip). */
    private static final class Attempt {
        final RunOutcome.Fork fork;
        final RunOutcome failure;
        final long seconds;

        Attempt(RunOutcome.Fork fork, RunOutcome failure, long seconds) {
            this.fork = fork;
            this.failure = failure;
            this.seconds = seconds;
        }
    }

    private Attempt runOne(Scenario scenario, Library library, int round, int rounds, long index, long runs) {
        String runId = scenario.id + "-" + library.id + "-f" + (round + 1);
        out.printf("[%2d/%d] %-20s %-11s %-9s ", index, runs, scenario.id, library.title,
                "fork " + (round + 1) + "/" + rounds);
        out.flush();
        if (library == Library.LATCHKEY && missingKinds.containsKey(scenario.kind)) {
            String why = missingKinds.get(scenario.kind);
            out.println("skipped: " + why);
            return new Attempt(null, RunOutcome.skipped(scenario, library, why), 0);
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
        try {
            Collection<RunResult> results = new Runner(jmh.build()).run();
            long seconds = (System.nanoTime() - began) / 1_000_000_000L;
            Properties metrics = readMetrics(runId);
            if (results.isEmpty()) {
                return failed(scenario, library, "JMH ran nothing; see " + log, metrics, seconds);
            }
            RunResult result = results.iterator().next();
            double[] iterations = result.getBenchmarkResults().stream()
                    .flatMap(b -> b.getIterationResults().stream())
                    .mapToDouble(i -> i.getPrimaryResult().getScore()).toArray();
            RunOutcome.Fork fork = new RunOutcome.Fork(result.getPrimaryResult().getScore(), iterations, metrics);
            printFork(scenario, fork, seconds);
            return new Attempt(fork, null, seconds);
        } catch (RunnerException | RuntimeException e) {
            long seconds = (System.nanoTime() - began) / 1_000_000_000L;
            Properties metrics = readMetrics(runId);
            String why = Optional.ofNullable(metrics.getProperty(TrialMetrics.Keys.VIOLATION))
                    .orElseGet(() -> failureIn(log).orElse(String.valueOf(e)));
            return failed(scenario, library, why + " (log: " + log + ")", metrics, seconds);
        }
    }

    private Attempt failed(Scenario scenario, Library library, String why, Properties metrics, long seconds) {
        out.printf("FAILED: %s  (%d s)%n", why, seconds);
        return new Attempt(null, RunOutcome.failed(scenario, library, why, metrics, seconds), seconds);
    }

    /** @return the system properties a run's JVM needs: Redis, where metrics go, watchdog sizes, hand-off */
    private Map<String, String> runProperties(String runId) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String key : List.of(BenchEnvironment.REDIS, BenchEnvironment.RED_LOCK_MASTERS, LatchkeyBackend.LOCAL_HAND_OFF_PROPERTY)) {
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

    private void printFork(Scenario scenario, RunOutcome.Fork fork, long seconds) {
        String score = scenario.shape == Scenario.Shape.WATCHDOG
                ? String.format(Locale.ROOT, "%,.0f commands to Redis during the hold",
                        fork.metric(TrialMetrics.Keys.REDIS_COMMANDS).orElse(Double.NaN))
                : String.format(Locale.ROOT, "%,.0f %s/s", fork.score, scenario.unit);
        out.printf("%s  (%d s)%n", score, seconds);
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
        report.note("Spring is Spring Integration " + SuiteEnvironment.version("org.springframework.integration", "spring-integration-redis")
                + "'s RedisLockRegistry in PUB_SUB_LOCK mode over Spring Data Redis's LettuceConnectionFactory (defaults),"
                + " its lease the watchdog lease, renewed by its renewal scheduler; it has only the plain lock, so it"
                + " runs in the uncontended, hot, plain two-JVM and many-keys scenarios (n/a elsewhere).");
        report.note("in-JVM fair and in-JVM are java.util.concurrent.locks.ReentrantLock(true) and (false) in the"
                + " benchmark's JVM, taken by the hot-lock scenarios' same threads over the same critical section"
                + " (the exclusion check), with no Redis: the limit local hand-off is measured against. The non-fair"
                + " one is mostly taken again by the thread that released it, so it bounds barging, not hand-off.");
        report.note(String.format(Locale.ROOT, "JMH: %d warm-up × %d s, %d measurement × %d s, %d fork%s per library"
                        + " and scenario (%s), libraries alternating fork by fork; watchdog: 1 fork, lease %d s,"
                        + " hold %d s.", timing.warmups, timing.warmupSeconds, timing.measurements,
                timing.measurementSeconds, options.forks, options.forks == 1 ? "" : "s",
                timing.forks == 0 ? "in the suite's JVM" : "each a JVM of its own",
                timing.watchdogLeaseMillis / 1000, timing.watchdogHoldMillis / 1000));
        report.note("Intervals: " + Estimate.CONFIDENCE_PERCENT + " % Student-t confidence intervals of the mean over the"
                + " forks (with one fork, over its measurement iterations, which understates the spread). A ratio says"
                + " faster/slower (better/worse for waits) only where Latchkey's interval and the comparator's do not"
                + " overlap, else \"" + Verdict.NOISE + "\"; a target is met only if the worst ends of the intervals"
                + " reach it, MISSED only if the best ends do not. Other rows merge the forks: counts added up,"
                + " percentiles as the median of the forks, maxima as the largest.");
        if (options.quick) {
            report.note("--quick: a smoke run, all libraries in one JVM, short iterations: the numbers and their"
                    + " intervals are indicative only; run without --quick for the real ones.");
        }
    }
}
