package io.latchkey.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The libraries under test, Latchkey and its comparators; {@link #id} is the value of the benchmarks' {@code library} parameter. */
public enum Library {
    LATCHKEY("latchkey", "Latchkey"),
    REDISSON("redisson", "Redisson"),
    /** Spring Integration's {@code RedisLockRegistry}: the plain lock only. */
    SPRING("spring", "Spring"),
    /** The limit of the hot-lock scenarios: a fair {@code java.util.concurrent.locks.ReentrantLock}, no Redis. */
    IN_JVM_FAIR("jvm-fair", "in-JVM fair"),
    /** A non-fair {@code ReentrantLock}, no Redis: the releasing thread mostly takes it again. */
    IN_JVM("jvm", "in-JVM"),
    /** The Redis ceiling: Latchkey's two scripts sent over Lettuce with no client around them ({@link RawLettuceBackend}). */
    RAW_LETTUCE("lettuce", "raw Lettuce");

    /** The Redis-backed libraries, in the column order of the report's tables. */
    static final List<Library> OVER_REDIS = List.of(LATCHKEY, REDISSON, SPRING);

    /** The in-JVM references, in column order. */
    static final List<Library> IN_JVM_REFERENCES = List.of(IN_JVM_FAIR, IN_JVM);

    /** What Latchkey is measured against besides its peers: the in-JVM limits and the Redis ceiling. */
    static final List<Library> REFERENCES = List.of(IN_JVM_FAIR, IN_JVM, RAW_LETTUCE);

    /** The JMH parameter value. */
    public final String id;
    /** The name in reports. */
    public final String title;

    Library(String id, String title) {
        this.id = id;
        this.title = title;
    }

    /**
     * @param id {@code latchkey}, {@code redisson}, {@code spring}, {@code jvm-fair}, {@code jvm} or
     *     {@code lettuce}, any case
     * @return the library
     * @throws IllegalArgumentException for any other value
     */
    public static Library of(String id) {
        for (Library library : values()) {
            if (library.id.equals(id.toLowerCase(Locale.ROOT))) {
                return library;
            }
        }
        throw new IllegalArgumentException("library must be latchkey, redisson, spring, jvm-fair, jvm or lettuce: " + id);
    }

    /**
     * @param scenario a scenario
     * @return the libraries that run it, in column order
     */
    static java.util.stream.Stream<Library> stream(Scenario scenario) {
        return java.util.Arrays.stream(values()).filter(scenario.libraries::contains);
    }

    /**
     * Connects this library to the benchmark's Redis.
     *
     * @param watchdogLease the lease of locks taken without one, renewed every third of it
     * @return a connected backend; close it
     */
    public LockBackend open(Duration watchdogLease) {
        switch (this) {
            case LATCHKEY:
                return new LatchkeyBackend(watchdogLease);
            case REDISSON:
                return new RedissonBackend(watchdogLease);
            case SPRING:
                return new SpringBackend(watchdogLease);
            case IN_JVM_FAIR:
                return new InJvmBackend(true);
            case RAW_LETTUCE:
                return new RawLettuceBackend(watchdogLease);
            default:
                return new InJvmBackend(false);
        }
    }
}
