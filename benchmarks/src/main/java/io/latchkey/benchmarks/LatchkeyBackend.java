package io.latchkey.benchmarks;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.SemaphorePermit;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Latchkey through its public API only: {@link LockClient}, {@link DistributedLock},
 * {@link DistributedReadWriteLock}.
 */
final class LatchkeyBackend implements LockBackend {

    /** LockConfig wants the command timeout under half the lease; short leases get a shorter one. */
    private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);

    /**
     * The system property that turns the local hand-off of plain locks (issue 13) and RedLocks off when
     * {@code false}, to measure the library without it; the suite passes it on to every JVM.
     */
    static final String LOCAL_HAND_OFF_PROPERTY = "latchkey.localHandOff";
    static final boolean LOCAL_HAND_OFF = !"false".equals(System.getProperty(LOCAL_HAND_OFF_PROPERTY));

    private final Duration watchdogLease;
    private final LockClient client;
    private LockClient redClient;

    LatchkeyBackend(Duration watchdogLease) {
        this.watchdogLease = watchdogLease;
        LockConfig.Builder plain = config().address(BenchEnvironment.redisUri());
        this.client = LockClient.create((LOCAL_HAND_OFF ? plain : plain.noLocalHandOff()).build());
    }

    private LockConfig.Builder config() {
        Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        if (commandTimeout.multipliedBy(2).compareTo(watchdogLease) >= 0) {
            commandTimeout = watchdogLease.dividedBy(3);
        }
        return LockConfig.builder().watchdogTimeout(watchdogLease).commandTimeout(commandTimeout);
    }

    @Override
    public BenchLock plain(String name) {
        return new Lock(client.getLock(name));
    }

    @Override
    public BenchSemaphore semaphore(String name, int permits) {
        DistributedSemaphore semaphore = client.getSemaphore(name, permits);
        return new BenchSemaphore() {
            @Override
            public Object acquire() throws InterruptedException {
                return semaphore.acquire();
            }

            @Override
            public void release(Object permit) {
                ((SemaphorePermit) permit).close();
            }
        };
    }

    @Override
    public BenchLock fair(String name) {
        return new Lock(client.getFairLock(name));
    }

    @Override
    public ReadWrite readWrite(String name) {
        DistributedReadWriteLock lock = client.getReadWriteLock(name);
        return new ReadWrite(new Lock(lock.readLock()), new Lock(lock.writeLock()));
    }

    @Override
    public synchronized BenchLock red(String name) {
        if (redClient == null) {
            LockConfig.Builder red = config().redLockAddresses(BenchEnvironment.redLockUris().toArray(String[]::new));
            redClient = LockClient.create((LOCAL_HAND_OFF ? red : red.noLocalHandOff()).build());
        }
        try {
            return new Lock(redClient.getRedLock(name));
        } catch (RuntimeException e) {
            redClient.close();
            redClient = null;
            throw e;
        }
    }

    @Override
    public synchronized void close() {
        try {
            client.close();
        } finally {
            if (redClient != null) {
                redClient.close();
            }
        }
    }

    private static final class Lock implements BenchLock {
        private final DistributedLock lock;

        Lock(DistributedLock lock) {
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
            return lock.lockAsync(owner);
        }

        @Override
        public CompletableFuture<Void> unlockAsync(long owner) {
            return lock.unlockAsync(owner);
        }

        @Override
        public CompletableFuture<Boolean> isLockedAsync() {
            return lock.isLockedAsync();
        }
    }
}
