package io.latchkey.benchmarks;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-JVM reference: a {@link ReentrantLock} per name, fair or not, that never leaves the JVM,
 * so that a hot-lock scenario shows how far Latchkey's local hand-off is from the limit of the
 * same critical section and threads. The plain lock only, and only its blocking calls: the
 * asynchronous ones name an owner, and a {@code ReentrantLock} belongs to a thread. Thread-safe.
 */
final class InJvmBackend implements LockBackend {

    private final boolean fair;
    private final Map<String, BenchLock> locks = new ConcurrentHashMap<>();

    /** @param fair whether the locks grant in arrival order, as {@code new ReentrantLock(true)} */
    InJvmBackend(boolean fair) {
        this.fair = fair;
    }

    @Override
    public BenchLock plain(String name) {
        return locks.computeIfAbsent(name, n -> new InJvmLock(new ReentrantLock(fair)));
    }

    @Override
    public BenchLock fair(String name) {
        throw only();
    }

    @Override
    public BenchLock red(String name) {
        throw only();
    }

    @Override
    public BenchSemaphore semaphore(String name, int permits) {
        throw only();
    }

    @Override
    public ReadWrite readWrite(String name) {
        throw only();
    }

    @Override
    public void close() {
        locks.clear();
    }

    private static UnsupportedOperationException only() {
        return new UnsupportedOperationException("the in-JVM reference runs the hot-lock scenarios only");
    }

    /** A {@link ReentrantLock} behind the benchmarks' calls. */
    private record InJvmLock(ReentrantLock delegate) implements BenchLock {

        @Override
        public void lock() {
            delegate.lock();
        }

        @Override
        public boolean tryLock() {
            return delegate.tryLock();
        }

        @Override
        public void unlock() {
            delegate.unlock();
        }

        @Override
        public CompletableFuture<Void> lockAsync(long owner) {
            throw new UnsupportedOperationException("a ReentrantLock belongs to a thread, not to an owner id");
        }

        @Override
        public CompletableFuture<Void> unlockAsync(long owner) {
            throw new UnsupportedOperationException("a ReentrantLock belongs to a thread, not to an owner id");
        }

        @Override
        public CompletableFuture<Boolean> isLockedAsync() {
            return CompletableFuture.completedFuture(delegate.isLocked());
        }
    }
}
