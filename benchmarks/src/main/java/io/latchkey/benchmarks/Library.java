package io.latchkey.benchmarks;

import java.time.Duration;
import java.util.Locale;

/** The two libraries under test; {@link #id} is the value of the benchmarks' {@code library} parameter. */
public enum Library {
    LATCHKEY("latchkey", "Latchkey"),
    REDISSON("redisson", "Redisson");

    /** The JMH parameter value. */
    public final String id;
    /** The name in reports. */
    public final String title;

    Library(String id, String title) {
        this.id = id;
        this.title = title;
    }

    /**
     * @param id {@code latchkey} or {@code redisson}, any case
     * @return the library
     * @throws IllegalArgumentException for any other value
     */
    public static Library of(String id) {
        for (Library library : values()) {
            if (library.id.equals(id.toLowerCase(Locale.ROOT))) {
                return library;
            }
        }
        throw new IllegalArgumentException("library must be latchkey or redisson: " + id);
    }

    /**
     * Connects this library to the benchmark's Redis.
     *
     * @param watchdogLease the lease of locks taken without one, renewed every third of it
     * @return a connected backend; close it
     */
    public LockBackend open(Duration watchdogLease) {
        return this == LATCHKEY ? new LatchkeyBackend(watchdogLease) : new RedissonBackend(watchdogLease);
    }
}
