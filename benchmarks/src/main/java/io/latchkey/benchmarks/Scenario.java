package io.latchkey.benchmarks;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * One line of the suite: a benchmark method, its thread count and parameters, the lock kind it
 * needs, the target ratio (Latchkey / Redisson throughput) the issue sets for it, and the
 * libraries that can express it. Immutable.
 */
final class Scenario {

    /** The lock kind a scenario needs from Latchkey: plain is in lock-core, the others in their modules. */
    enum Kind { PLAIN, FAIR, RED }

    /** How the suite runs it: timed iterations, or the watchdog's one long hold. */
    enum Shape { THROUGHPUT, WATCHDOG }

    final String id;
    final String title;
    final Class<?> benchmarkClass;
    final String method;
    final int threads;
    final Map<String, String> params;
    final Kind kind;
    final Shape shape;
    final OptionalDouble target;
    /** The target for Latchkey's wait p99 as a fraction of Redisson's, where the issue sets one. */
    final OptionalDouble p99Target;
    /** What one operation of the JMH score is: "acquisitions", "handoffs". */
    final String unit;
    /**
     * The libraries that can express it: Latchkey and Redisson always, Spring, the in-JVM locks and
     * the Redis ceiling where {@code withSpring()}, {@code withInJvm} and {@code withCeiling()}
     * add them.
     */
    final Set<Library> libraries;
    /**
     * The target for Latchkey's throughput as a fraction of the fair in-JVM lock's, where the
     * scenario runs the in-JVM references ({@code withInJvm}).
     */
    final OptionalDouble inJvmTarget;

    private Scenario(String id, String title, Class<?> benchmarkClass, String method, int threads,
            Map<String, String> params, Kind kind, Shape shape, OptionalDouble target, String unit) {
        this(id, title, benchmarkClass, method, threads, params, kind, shape, target, OptionalDouble.empty(), unit);
    }

    private Scenario(String id, String title, Class<?> benchmarkClass, String method, int threads,
            Map<String, String> params, Kind kind, Shape shape, OptionalDouble target, OptionalDouble p99Target,
            String unit) {
        this(id, title, benchmarkClass, method, threads, params, kind, shape, target, p99Target, unit,
                EnumSet.of(Library.LATCHKEY, Library.REDISSON), OptionalDouble.empty());
    }

    private Scenario(String id, String title, Class<?> benchmarkClass, String method, int threads,
            Map<String, String> params, Kind kind, Shape shape, OptionalDouble target, OptionalDouble p99Target,
            String unit, Set<Library> libraries, OptionalDouble inJvmTarget) {
        this.id = id;
        this.title = title;
        this.benchmarkClass = benchmarkClass;
        this.method = method;
        this.threads = threads;
        this.params = Map.copyOf(params);
        this.kind = kind;
        this.shape = shape;
        this.target = target;
        this.p99Target = p99Target;
        this.unit = unit;
        this.libraries = Set.copyOf(libraries);
        this.inJvmTarget = inJvmTarget;
    }

    /** @return this scenario, run with Spring's {@code RedisLockRegistry} too (it has the plain lock only) */
    private Scenario withSpring() {
        Set<Library> more = EnumSet.copyOf(libraries);
        more.add(Library.SPRING);
        return new Scenario(id, title, benchmarkClass, method, threads, params, kind, shape, target, p99Target, unit,
                more, inJvmTarget);
    }

    /**
     * @param goal Latchkey's throughput as a fraction of the fair in-JVM lock's to reach
     * @return this scenario, run with the in-JVM {@code ReentrantLock}s too (plain-lock scenarios
     *     whose benchmark takes the lock by thread only)
     */
    private Scenario withInJvm(double goal) {
        Set<Library> more = EnumSet.copyOf(libraries);
        more.addAll(Library.IN_JVM_REFERENCES);
        return new Scenario(id, title, benchmarkClass, method, threads, params, kind, shape, target, p99Target, unit,
                more, OptionalDouble.of(goal));
    }

    /**
     * @return this scenario, run with the Redis ceiling too ({@link RawLettuceBackend}: Latchkey's
     *     two scripts over Lettuce with no client around them), where refusals are rare
     */
    private Scenario withCeiling() {
        Set<Library> more = EnumSet.copyOf(libraries);
        more.add(Library.RAW_LETTUCE);
        return new Scenario(id, title, benchmarkClass, method, threads, params, kind, shape, target, p99Target, unit,
                more, inJvmTarget);
    }

    /** @return JMH's include pattern for exactly this benchmark method */
    String includePattern() {
        return "^" + benchmarkClass.getName().replace(".", "\\.") + "\\." + method + "$";
    }

    /** @return whether a filter from {@code --only} selects this scenario */
    boolean matches(String filter) {
        return id.equals(filter) || id.startsWith(filter + "-");
    }

    /** @return every scenario of the suite, in the order they run */
    static List<Scenario> all() {
        OptionalDouble none = OptionalDouble.empty();
        return List.of(
                new Scenario("uncontended-lock", "uncontended lock()+unlock(), 1 thread",
                        UncontendedBenchmark.class, "lockUnlock", 1, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                        OptionalDouble.of(2.5), "acquisitions").withSpring().withCeiling(),
                new Scenario("uncontended-trylock", "uncontended tryLock()+unlock(), 1 thread",
                        UncontendedBenchmark.class, "tryLockUnlock", 1, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                        OptionalDouble.of(2.5), "acquisitions").withSpring(),
                hot(2), hot(8), hot(32),
                new Scenario("two-jvms", "one hot lock, 2 JVMs × 8 threads",
                        TwoJvmBenchmark.class, "lockUnlock", 8, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                        OptionalDouble.of(3), OptionalDouble.of(0.2), "acquisitions").withSpring(),
                new Scenario("many-keys", "32 threads over 10,000 locks",
                        ManyKeysBenchmark.class, "lockUnlock", 32, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                        OptionalDouble.of(2.5), "acquisitions").withSpring().withCeiling(),
                fair(8), fair(32),
                fairQueue(1), fairQueue(100), fairQueue(1000),
                // The read-write lock is in lock-core, as the plain lock is. Issue 28 (shared reads
                // at local speed) sets ≥ 6× for one JVM; the two-JVM row reports.
                new Scenario("read-write-8", "read-write lock, 8 threads, 90 % reads",
                        ReadWriteBenchmark.class, "readMostly", 8, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                        OptionalDouble.of(6), "acquisitions"),
                new Scenario("read-write-two-jvms", "read-write lock, 2 JVMs × 8 threads, 90 % reads",
                        TwoJvmReadWriteBenchmark.class, "readMostly", 8, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                        none, "acquisitions"),
                new Scenario("redlock", "RedLock over 3 masters, lock()+unlock(), 1 thread",
                        RedLockBenchmark.class, "lockUnlock", 1, Map.of(), Kind.RED, Shape.THROUGHPUT,
                        OptionalDouble.of(4), "acquisitions"),
                // Issue 28: a hot RedLock, which local hand-off passes between the JVM's threads.
                new Scenario("redlock-8", "one hot RedLock over 3 masters, 8 threads in one JVM",
                        RedLockBenchmark.class, "lockUnlock", 8, Map.of(), Kind.RED, Shape.THROUGHPUT,
                        OptionalDouble.of(8), "acquisitions"),
                // Issue 28 asks for this one "bounded as for the plain lock" and sets no number: it
                // gets two-jvms's targets (≥ 3×, this JVM's wait p99 ≤ 0.2 of Redisson's), since
                // the RedLock's hand-off is to keep the plain lock's bounds and turns between
                // clients (the longest run shows whether it does).
                // Not redlock-8's ≥ 8×: every turn between the JVMs is a quorum released and taken
                // again on three masters, which one JVM's threads alone never pay. No Spring: it
                // has no RedLock.
                new Scenario("redlock-two-jvms", "one hot RedLock over 3 masters, 2 JVMs × 8 threads",
                        RedLockTwoJvmBenchmark.class, "lockUnlock", 8, Map.of(), Kind.RED, Shape.THROUGHPUT,
                        OptionalDouble.of(3), OptionalDouble.of(0.2), "acquisitions"),
                semaphore(8), semaphore(16),
                new Scenario("watchdog", "watchdog: 10,000 locks held",
                        WatchdogBenchmark.class, "holdAll", 1, Map.of(), Kind.PLAIN, Shape.WATCHDOG,
                        none, "holds"));
    }

    private static Scenario hot(int threads) {
        return new Scenario("hot-" + threads, "one hot lock, " + threads + " threads in one JVM",
                HotLockBenchmark.class, "lockUnlock", threads, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                OptionalDouble.of(3), OptionalDouble.of(0.2), "acquisitions").withSpring().withInJvm(0.8);
    }

    private static Scenario fair(int threads) {
        return new Scenario("fair-" + threads, "fair lock, " + threads + " threads",
                FairLockBenchmark.class, "lockUnlock", threads, Map.of(), Kind.FAIR, Shape.THROUGHPUT,
                OptionalDouble.of(3), "acquisitions");
    }

    private static Scenario semaphore(int threads) {
        return new Scenario("semaphore-" + threads, "leased semaphore of " + SemaphoreBenchmark.PERMITS + " permits, "
                + threads + " threads (Redisson: RPermitExpirableSemaphore)",
                SemaphoreBenchmark.class, "acquireRelease", threads, Map.of(), Kind.PLAIN, Shape.THROUGHPUT,
                OptionalDouble.empty(), "acquisitions");
    }

    private static Scenario fairQueue(int waiters) {
        return new Scenario("fair-queue-" + waiters, "fair lock, one acquire with " + String.format("%,d", waiters)
                + " queued waiter" + (waiters == 1 ? "" : "s"),
                FairQueueBenchmark.class, "awaitHandoff", 1, Map.of("waiters", Integer.toString(waiters)),
                Kind.FAIR, Shape.THROUGHPUT, OptionalDouble.of(3), "handoffs");
    }
}
