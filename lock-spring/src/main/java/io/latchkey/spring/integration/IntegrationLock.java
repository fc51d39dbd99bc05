package io.latchkey.spring.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/** One of Latchkey's locks in Spring Integration's terms: the time-to-live is the lease. */
final class IntegrationLock implements DistributedLock {

    private final io.latchkey.DistributedLock lock;

    IntegrationLock(io.latchkey.DistributedLock lock) {
        this.lock = lock;
    }

    @Override
    public void lock(Duration ttl) {
        lock.lock(ttl);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return lock.tryLock(waitTime, ttl);
    }

    @Override
    public void lock() {
        lock.lock();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        return lock.tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(time, unit);
    }

    @Override
    public void unlock() {
        lock.unlock();
    }

    /** @throws UnsupportedOperationException always: a distributed lock has no conditions */
    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    @Override
    public String toString() {
        return "IntegrationLock{" + lock.getName() + '}';
    }
}
