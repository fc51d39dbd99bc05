package io.latchkey.benchmarks;

import java.time.Duration;
import java.util.Locale;

/** The libraries under test, Latchkey and its comparators; {@link #id} is the value of the benchmarks' {@code library} parameter. */
public enum Library {
    LATCHKEY("latchkey", "Latchkey"),
    REDISSON("redisson", "Redisson"),
    /** Spring Integration's {@code RedisLockRegistry}: the plain lock only. */
    SPRING("spring", "Spring");

    /** The JMH parameter value. */
    public final String id;
    /** The name in reports. */
    public final String title;

    Library(String id, String title) {
        this.id = id;
        this.title = title;
    }

    /**
     * @param id {@code latchkey}, {@code redisson} or {@code spring}, any case
     * @return the library
     * @throws IllegalArgumentException for any other value
     */
    public static Library of(String id) {
        for (Library library : values()) {
            if (library.id.equals(id.toLowerCase(Locale.ROOT))) {
                return library;
            }
        }
        throw new IllegalArgumentException("library must be latchkey, redisson or spring: " + id);
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
            default:
                return new SpringBackend(watchdogLease);
        }
    }
}
