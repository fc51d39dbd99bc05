package io.latchkey.spring;

import io.latchkey.LockHold;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** A bean with {@code @Locked} methods, as an application writes them. */
public class OrderService {

    /** Owners inside {@link #count()} at once, across every context of the JVM. */
    static final AtomicInteger INSIDE = new AtomicInteger();
    static final AtomicInteger MOST_INSIDE = new AtomicInteger();
    /** Incremented unguarded: only the lock keeps increments from being lost. */
    static int counted;
    static final AtomicInteger RUNS = new AtomicInteger();

    /** An order. @param id its id */
    public record Order(long id) {
    }

    @Locked(name = "spring:counter")
    public void count() {
        int now = INSIDE.incrementAndGet();
        MOST_INSIDE.accumulateAndGet(now, Math::max);
        int seen = counted;
        Thread.yield();
        counted = seen + 1;
        INSIDE.decrementAndGet();
    }

    @Locked(name = "orders:#{#order.id}")
    public LockHold ship(Order order) {
        return CurrentLock.hold().orElseThrow();
    }

    @Locked(name = "orders:#{#p0.id}:#{#priority}")
    public String shipWith(Order order, int priority) {
        return CurrentLock.hold().orElseThrow().lock().getName();
    }

    @Locked(name = "orders:#{#order.id}")
    public long shipTwice(Order order, OrderService self) {
        long outer = CurrentLock.fencingToken();
        long inner = self.ship(order).fencingToken(); // a re-entry of the same thread's hold
        return outer == inner ? inner : -1;
    }

    @Locked(name = "busy", waitTime = "200ms")
    public void busy() {
        RUNS.incrementAndGet();
    }

    @Locked(name = "busy", waitTime = "200ms", onTimeout = Locked.OnTimeout.SKIP)
    public Optional<String> busyOrSkip() {
        RUNS.incrementAndGet();
        return Optional.of("ran");
    }

    @Locked(name = "failing")
    public void fail() {
        throw new IllegalStateException("inside the lock");
    }

    @Locked(name = "async:#{#name}")
    public CompletableFuture<String> later(String name, CompletableFuture<String> work) {
        return work;
    }

    @Locked(name = "fixed", leaseTime = "10s", waitTime = "0s")
    public long fixedLease() {
        return CurrentLock.hold().orElseThrow().lock().remainingLease().toMillis();
    }
}
