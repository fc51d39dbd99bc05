package io.latchkey.benchmarks;

import io.netty.channel.epoll.Epoll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.TransportMode;

/**
 * Redisson 4.7.0 with its defaults, except three settings that the suite states in its notes: the
 * watchdog lease (the same as Latchkey's); 50 channels per subscription connection instead of 5,
 * because its fair lock subscribes one channel per waiter and 1,000 queued waiters do not fit in
 * the default 50 × 5; and Netty's native epoll transport where it is available, as Latchkey uses,
 * so that both libraries pay the same for a round trip.
 */
final class RedissonBackend implements LockBackend {

    static final int SUBSCRIPTIONS_PER_CONNECTION = 50;
    private static final long SHUTDOWN_TIMEOUT_SECONDS = 10;

    private final Duration watchdogLease;
    private final RedissonClient client;
    private final List<RedissonClient> masters = new ArrayList<>();

    RedissonBackend(Duration watchdogLease) {
        this.watchdogLease = watchdogLease;
        this.client = connect(BenchEnvironment.redisUri());
    }

    private RedissonClient connect(String uri) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdogLease.toMillis());
        if (Epoll.isAvailable()) {
            config.setTransportMode(TransportMode.EPOLL);
        }
        config.useSingleServer()
                .setAddress(uri)
                .setSubscriptionsPerConnection(SUBSCRIPTIONS_PER_CONNECTION);
        return Redisson.create(config);
    }

    @Override
    public BenchLock plain(String name) {
        return new Lock(client.getLock(name));
    }

    @Override
    public BenchSemaphore semaphore(String name, int permits) {
        RPermitExpirableSemaphore semaphore = client.getPermitExpirableSemaphore(name);
        semaphore.trySetPermits(permits);
        long leaseMillis = watchdogLease.toMillis();
        return new BenchSemaphore() {
            @Override
            public Object acquire() throws InterruptedException {
                // Redisson renews no permit: a lease as long as the watchdog's is its nearest match.
                return semaphore.acquire(leaseMillis, TimeUnit.MILLISECONDS);
            }

            @Override
            public void release(Object permit) {
                semaphore.release((String) permit);
            }
        };
    }

    @Override
    public BenchLock fair(String name) {
        return new Lock(client.getFairLock(name));
    }

    @Override
    public ReadWrite readWrite(String name) {
        RReadWriteLock lock = client.getReadWriteLock(name);
        return new ReadWrite(new Lock(lock.readLock()), new Lock(lock.writeLock()));
    }

    @Override
    @SuppressWarnings("deprecation") // RedissonRedLock is deprecated upstream, but it is Redisson's RedLock
    public synchronized BenchLock red(String name) {
        if (masters.isEmpty()) {
            BenchEnvironment.redLockUris().forEach(uri -> masters.add(connect(uri)));
        }
        RLock[] perMaster = masters.stream().map(master -> master.getLock(name)).toArray(RLock[]::new);
        return new Lock(new RedissonRedLock(perMaster));
    }

    @Override
    public synchronized void close() {
        // No quiet period: nothing runs any more, and the default two seconds add up over a suite.
        client.shutdown(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        masters.forEach(master -> master.shutdown(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS));
        masters.clear();
    }

    private static final class Lock implements BenchLock {
        private final RLock lock;

        Lock(RLock lock) {
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
            return lock.lockAsync(owner).toCompletableFuture();
        }

        @Override
        public CompletableFuture<Void> unlockAsync(long owner) {
            return lock.unlockAsync(owner).toCompletableFuture();
        }

        @Override
        public CompletableFuture<Boolean> isLockedAsync() {
            return lock.isLockedAsync().toCompletableFuture();
        }
    }
}
