package io.latchkey.topology;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records entering and leaving the critical section of each lock name, so that a test can
 * assert that no two holders were ever inside at once and that every hold was counted.
 * Thread-safe.
 */
final class OverlapDetector {

    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicLong holds = new AtomicLong();

    /** Call right after the lock was acquired. */
    void enter(String name) {
        holds.incrementAndGet();
        if (inside.computeIfAbsent(name, any -> new AtomicInteger()).incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
    }

    /** Call right before the lock is released. */
    void exit(String name) {
        inside.get(name).decrementAndGet();
    }

    /** @return the times a holder entered while another was inside */
    int overlaps() {
        return overlaps.get();
    }

    /** @return how many holds entered */
    long holds() {
        return holds.get();
    }
}
