package io.latchkey.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * Threads of one client that take a lock in turn, each again as soon as it let go, until
 * stopped: the hot client of the local hand-off tests, against which another client's waiter
 * must get the lock within the hand-off bound.
 */
public final class HotContenders {

    /** What a contender does while it holds the lock. */
    @FunctionalInterface
    public interface Section {
        void run() throws Exception;
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Future<?>> contenders = new ArrayList<>();

    private HotContenders(ExecutorService threads, int count, Lock lock, Section section) {
        for (int i = 0; i < count; i++) {
            contenders.add(threads.submit(() -> {
                while (!stop.get()) {
                    lock.lock();
                    try {
                        section.run();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
    }

    /**
     * Starts {@code count} contenders on {@code threads} and returns once the client has passed
     * the lock on locally 20 times, so that the hand-offs are under way.
     *
     * @param handOffs the client's hand-off events, as its listener records them
     */
    public static HotContenders start(ExecutorService threads, int count, Lock lock, Collection<?> handOffs, Section section)
            throws InterruptedException {
        HotContenders hot = new HotContenders(threads, count, lock, section);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (handOffs.size() < 20) {
            if (System.nanoTime() - deadline > 0) {
                hot.stop.set(true);
            }
            assertTrue(System.nanoTime() < deadline, "no local hand-offs under contention: " + handOffs.size());
            Thread.sleep(5);
        }
        return hot;
    }

    /** Tells the contenders to stop after their current turn. */
    public void stop() {
        stop.set(true);
    }

    /** Waits for every contender to have stopped, failing with what one of them threw. */
    public void awaitStopped() throws Exception {
        stop();
        for (Future<?> contender : contenders) {
            contender.get(10, TimeUnit.SECONDS);
        }
    }
}
