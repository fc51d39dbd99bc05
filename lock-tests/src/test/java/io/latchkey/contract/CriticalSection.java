package io.latchkey.contract;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A critical section for mutual-exclusion tests: contenders record entering and leaving it, so a
 * test can assert that never two holders were inside at once, and they bump an unguarded counter,
 * so a lost update shows a hold the lock did not protect. Thread-safe by design only while the
 * lock works: that is what it checks.
 */
public final class CriticalSection {

    /** One way of taking the lock. */
    @FunctionalInterface
    public interface Acquire {
        /**
         * @param lock the lock to take
         * @throws Exception if it could not be taken
         */
        void acquire(DistributedLock lock) throws Exception;
    }

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private volatile int counter;

    /**
     * Every blocking way of taking a lock, so that contenders mix them.
     *
     * @param patience how long the {@code tryLock} flavour waits before it counts as a failure
     * @param lease the lease of the fixed-lease flavour
     * @return lock(), lockInterruptibly(), tryLock(patience), lock(lease)
     */
    public static List<Acquire> flavours(Duration patience, Duration lease) {
        return List.of(
                DistributedLock::lock,
                DistributedLock::lockInterruptibly,
                lock -> {
                    if (!lock.tryLock(patience)) {
                        throw new AssertionError("tryLock(" + patience + ") gave up");
                    }
                },
                lock -> lock.lock(lease));
    }

    /**
     * @param lock the contended lock
     * @param acquire how to take it
     * @param start released when every contender is ready
     * @param times how many holds to take
     * @return a contender that records failures here instead of throwing
     */
    public Runnable contender(DistributedLock lock, Acquire acquire, CountDownLatch start, int times) {
        return () -> {
            try {
                start.await();
                for (int i = 0; i < times; i++) {
                    acquire.acquire(lock);
                    try {
                        pass();
                    } finally {
                        lock.unlock();
                    }
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        };
    }

    private void pass() {
        enterAndLeave(() -> { });
    }

    /**
     * Enters and leaves the section once, for a contender that takes and releases the lock itself.
     *
     * @param work run inside, while the hold is counted (e.g. recording the hold's token in hold order)
     */
    public void enterAndLeave(Runnable work) {
        if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        work.run();
        int seen = counter;
        Thread.yield(); // widen the window in which an overlapping holder would lose an update
        counter = seen + 1;
        inside.decrementAndGet();
    }

    /** @param expectedHolds how many holds the contenders took in all */
    public void assertExclusive(int expectedHolds) {
        assertAll(
                () -> assertTrue(failures.isEmpty(), "contenders failed: " + failures),
                () -> assertEquals(0, overlaps.get(), "times two holders were inside at once"),
                () -> assertEquals(expectedHolds, counter, "holds counted by the unguarded counter"));
    }
}
