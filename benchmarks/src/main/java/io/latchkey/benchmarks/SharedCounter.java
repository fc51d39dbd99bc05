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
 * short of the acquisitions of all processes. Thread-safe, and process-safe by the same means.
 */
final class SharedCounter {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int HOLDERS = 0;
    private static final int COUNTER = 8;
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
    }

    /** The caller is about to release the lock. */
    void exit() {
        LONGS.getAndAdd(memory, HOLDERS, -1L);
    }

    /** @return the counter: acquisitions of every process, if mutual exclusion held */
    long count() {
        return (long) LONGS.getVolatile(memory, COUNTER);
    }
}
