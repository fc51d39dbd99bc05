package io.latchkey.benchmarks;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration's {@link RedisLockRegistry} in its pub/sub mode ({@code PUB_SUB_LOCK}: a
 * waiter sleeps until the holder's unlock message, rather than polling), over Spring Data Redis's
 * {@link LettuceConnectionFactory} with its defaults (one shared native Lettuce connection). Its
 * lease is the watchdog lease of the other two libraries, and a renewal scheduler extends it while
 * a lock is held, as their watchdogs do.
 *
 * <p>It expresses the plain lock only, taken and released by the calling thread: no fair lock,
 * no RedLock, no leased semaphore, no read-write lock, no owner other than a thread and no "is it locked" query.
 * Those calls throw {@link UnsupportedOperationException}, and the suite runs Spring only in the
 * scenarios that need none of them ({@link Scenario#libraries}). The registry queues the threads
 * of one JVM on a local {@code ReentrantLock} per key before they go to Redis.
 */
final class SpringBackend implements LockBackend {

    private static final String REGISTRY_KEY = "latchkey-bench-spring";

    private final LettuceConnectionFactory connections;
    private final ThreadPoolTaskScheduler renewals = new ThreadPoolTaskScheduler();
    private final RedisLockRegistry registry;

    SpringBackend(Duration watchdogLease) {
        RedisURI uri = RedisURI.create(BenchEnvironment.redisUri());
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
        renewals.setThreadNamePrefix("spring-lock-renewal-");
        renewals.initialize();
        registry = new RedisLockRegistry(connections, REGISTRY_KEY, watchdogLease);
        registry.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
        registry.setRenewalTaskScheduler(renewals);
    }

    @Override
    public BenchLock plain(String name) {
        return new ThreadLock(registry.obtain(name));
    }

    @Override
    public BenchLock fair(String name) {
        throw new UnsupportedOperationException("Spring's RedisLockRegistry has no fair lock");
    }

    @Override
    public BenchLock red(String name) {
        throw new UnsupportedOperationException("Spring's RedisLockRegistry has no RedLock");
    }

    @Override
    public BenchSemaphore semaphore(String name, int permits) {
        throw new UnsupportedOperationException("Spring's RedisLockRegistry has no semaphore");
    }

    @Override
    public ReadWrite readWrite(String name) {
        throw new UnsupportedOperationException("Spring's RedisLockRegistry has no read-write lock");
    }

    @Override
    public void close() {
        try {
            registry.destroy();
        } finally {
            renewals.shutdown();
            connections.destroy();
        }
    }

    /** The registry's lock, owned by the calling thread as a {@code java.util.concurrent.locks.Lock} is. */
    private static final class ThreadLock implements BenchLock {
        private final Lock lock;

        ThreadLock(Lock lock) {
            this.lock = lock;
        }

        @Override
        public void lock() {
            lock.lock();
        }

        @Override
        public boolean tryLock() {
            return lock.tryLock();
        }

        @Override
        public void unlock() {
            lock.unlock();
        }

        @Override
        public CompletableFuture<Void> lockAsync(long owner) {
            throw new UnsupportedOperationException("Spring's lock is owned by a thread, not by an id");
        }

        @Override
        public CompletableFuture<Void> unlockAsync(long owner) {
            throw new UnsupportedOperationException("Spring's lock is owned by a thread, not by an id");
        }

        @Override
        public CompletableFuture<Boolean> isLockedAsync() {
            throw new UnsupportedOperationException("Spring's lock cannot be asked whether another client holds it");
        }
    }
}
