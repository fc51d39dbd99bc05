package io.latchkey.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The mutual-exclusion check across JVMs: a holder count and a plain counter in a small file
 * that every contending process maps into memory, so all of them see the same bytes. The holder
 * count is changed atomically and catches an overlap as it happens; the counter is read and
 * written back non-atomically, so overlapping holders lose increments and the final count falls
 * short of the acquisitions of all processes. Readers of a read-write lock count themselves apart
 * ({@link #enterShared()}): a reader and a writer inside at once are caught as they happen, and
 * the counter counts the writers. Thread-safe, and process-safe by the same means.
 *
 * <p>It also tracks fairness between two JVMs (numbered 0 and 1): each JVM's threads count
 * themselves as waiting while in {@code lock()} ({@link #waiting}, {@link #granted}), and each
 * grant, made under the lock, extends or ends the current run of consecutive grants to one JVM
 * while the other had a waiter; {@link #longestRun()} is the longest such run since
 * {@link #resetLongestRun()}. A grant while the other JVM had nobody waiting ends the run: it
 * kept nobody out.
 */
final class SharedCounter {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int HOLDERS = 0;
    private static final int COUNTER = 8;
    private static final int LAST_JVM = 16;
    private static final int RUN = 24;
    private static final int LONGEST_RUN = 32;
    private static final int WAITING = 40;
    private static final int READERS = 56;
    private static final int SIZE = 64;

    private final MappedByteBuffer memory;

    private SharedCounter(MappedByteBuffer memory) {
        this.memory = memory;
    }

    /**
     * @param file the file every process maps; created with zeros if absent
     * @return the mapped counter
     */
    static SharedCounter map(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            return new SharedCounter(channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map " + file, e);
        }
    }

    /**
     * The caller holds the lock: counts it as a holder and increments the counter non-atomically.
     *
     * @throws IllegalStateException if another holder, in any process, is inside right now
     */
    void enter() {
        long others = (long) LONGS.getAndAdd(memory, HOLDERS, 1L);
        long count = (long) LONGS.getVolatile(memory, COUNTER);
        LONGS.setVolatile(memory, COUNTER, count + 1);
        if (others != 0) {
            LONGS.getAndAdd(memory, HOLDERS, -1L);
            throw new IllegalStateException("MUTUAL EXCLUSION VIOLATED: two holders in different threads or JVMs at once");
        }
        if ((long) LONGS.getVolatile(memory, READERS) != 0) {
            LONGS.getAndAdd(memory, HOLDERS, -1L);
            throw new IllegalStateException("MUTUAL EXCLUSION VIOLATED: a writer and a reader in different threads or JVMs at once");
        }
    }

    /**
     * The caller holds a read lock: counts it as a reader. A writer that enters checks the readers
     * after counting itself, a reader the writers after counting itself, so one of two that overlap
     * sees the other.
     *
     * @throws IllegalStateException if a writer, in any process, is inside right now
     */
    void enterShared() {
        LONGS.getAndAdd(memory, READERS, 1L);
        if ((long) LONGS.getVolatile(memory, HOLDERS) != 0) {
            LONGS.getAndAdd(memory, READERS, -1L);
            throw new IllegalStateException("MUTUAL EXCLUSION VIOLATED: a reader and a writer in different threads or JVMs at once");
        }
    }

    /** The reader is about to release the read lock. */
    void exitShared() {
        LONGS.getAndAdd(memory, READERS, -1L);
    }

    /** The caller is about to release the lock. */
    void exit() {
        LONGS.getAndAdd(memory, HOLDERS, -1L);
    }

    /**
     * A thread of {@code jvm} is about to call {@code lock()}.
     *
     * @param jvm 0 or 1
     */
    void waiting(int jvm) {
        LONGS.getAndAdd(memory, waitingSlot(jvm), 1L);
    }

    /**
     * A thread of {@code jvm} that called {@link #waiting} now holds the lock: it waits no more,
     * and the grant extends or ends the run of grants to one JVM. Call it under the lock, before
     * {@link #enter()}, so that grants are counted in the order the lock made them.
     *
     * @param jvm 0 or 1
     */
    void granted(int jvm) {
        LONGS.getAndAdd(memory, waitingSlot(jvm), -1L);
        boolean otherWaits = (long) LONGS.getVolatile(memory, waitingSlot(1 - jvm)) > 0;
        long last = (long) LONGS.getVolatile(memory, LAST_JVM);
        long run = (long) LONGS.getVolatile(memory, RUN);
        long next = !otherWaits ? 0 : last == jvm ? run + 1 : 1;
        LONGS.setVolatile(memory, RUN, next);
        LONGS.setVolatile(memory, LAST_JVM, (long) jvm);
        // The reset may come from outside the lock: a plain maximum, retried, never loses to it.
        long longest = (long) LONGS.getVolatile(memory, LONGEST_RUN);
        while (next > longest && !LONGS.compareAndSet(memory, LONGEST_RUN, longest, next)) {
            longest = (long) LONGS.getVolatile(memory, LONGEST_RUN);
        }
    }

    /** @return the longest run of consecutive grants to one JVM while the other waited, since the last reset */
    long longestRun() {
        return (long) LONGS.getVolatile(memory, LONGEST_RUN);
    }

    /** Starts a new window for {@link #longestRun()}; a run going on at the reset counts whole once it grows. */
    void resetLongestRun() {
        LONGS.setVolatile(memory, LONGEST_RUN, 0L);
    }

    private static int waitingSlot(int jvm) {
        if (jvm != 0 && jvm != 1) {
            throw new IllegalArgumentException("jvm must be 0 or 1: " + jvm);
        }
        return WAITING + 8 * jvm;
    }

    /** @return the counter: exclusive acquisitions of every process, if mutual exclusion held */
    long count() {
        return (long) LONGS.getVolatile(memory, COUNTER);
    }
}
