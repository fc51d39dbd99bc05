package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.TimingBound;
import io.latchkey.internal.lock.LockFacade;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An async acquire whose future the caller completes itself (its own {@code orTimeout}, a
 * {@code complete(false)}) just as the grant arrives: the caller will never learn that it holds
 * the lock, so the grant must be given back. Below Redis, with a protocol that counts holds, so
 * that the race can be run many thousand times. Before the fix a kept grant showed within the
 * first few rounds.
 */
@TimingBound
class CallerCompletedFutureTest {

    /** Watches the fake holds' leases, which never run out within a test. */
    private static final Timer TIMER = new HashedWheelTimer();

    @AfterAll
    static void stopTimer() {
        TIMER.stop();
    }


    private static final int ROUNDS = 20_000;

    @Test
    void aGrantThatLosesTheRaceAgainstTheCallersOwnCompletionIsGivenBack() throws Exception {
        CountingProtocol protocol = new CountingProtocol();
        DistributedLock lock = new LockFacade(protocol, Duration.ofSeconds(30));
        ExecutorService racers = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                CompletableFuture<Long> grant = new CompletableFuture<>();
                protocol.nextReply.set(grant);
                CompletableFuture<Boolean> caller = lock.tryLockAsync(Duration.ofSeconds(5), Duration.ofSeconds(5), 7);
                CountDownLatch start = new CountDownLatch(1);
                CompletableFuture<?> granting = CompletableFuture.runAsync(() -> {
                    await(start);
                    grant.complete(null);
                }, racers);
                CompletableFuture<?> completing = CompletableFuture.runAsync(() -> {
                    await(start);
                    caller.complete(false);
                }, racers);
                start.countDown();
                CompletableFuture.allOf(granting, completing).get(5, TimeUnit.SECONDS);

                boolean callerHolds = caller.join();
                protocol.settled().get(5, TimeUnit.SECONDS);
                assertThat(protocol.holds.get()).as("round %d: holds the caller does not know of", round)
                        .isEqualTo(callerHolds ? 1 : 0);
                if (callerHolds) {
                    lock.unlockAsync(7).get(5, TimeUnit.SECONDS);
                }
            }
        } finally {
            racers.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Grants through a future the test completes; counts holds; every release completes at once. */
    private static final class CountingProtocol implements LockProtocol {

        final AtomicReference<CompletableFuture<Long>> nextReply = new AtomicReference<>();
        final AtomicInteger holds = new AtomicInteger();
        private final HoldRegistry registry = new HoldRegistry(TIMER, Ticker.system());
        private volatile CompletableFuture<Void> lastRelease = CompletableFuture.completedFuture(null);

        CompletableFuture<Void> settled() {
            return lastRelease;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
            return nextReply.get().thenApply(reply -> {
                holds.incrementAndGet();
                return TryResult.acquired(new TryResult.Grant() {
                    @Override
                    public long fencingToken() {
                        return 1;
                    }

                    @Override
                    public long confirmedUntilNanos() {
                        return Ticker.system().read() + TimeUnit.MILLISECONDS.toNanos(lease.millis());
                    }

                    @Override
                    public void start(Hold hold) {
                    }
                });
            });
        }

        @Override
        public HoldRegistry holdRegistry() {
            return registry;
        }

        @Override
        public Object identity() {
            return this;
        }

        @Override
        public CompletableFuture<Void> release(long owner) {
            if (holds.getAndUpdate(count -> Math.max(0, count - 1)) == 0) {
                return CompletableFuture.failedFuture(new IllegalMonitorStateException("not held"));
            }
            lastRelease = CompletableFuture.completedFuture(null);
            return lastRelease;
        }

        @Override
        public CompletableFuture<Void> abandon(long owner) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Wakeups> wakeups(long owner) {
            return CompletableFuture.failedFuture(new AssertionError("the lock is never held by another"));
        }

        @Override
        public CompletableFuture<Boolean> forceRelease() {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletableFuture<Boolean> isLocked() {
            return CompletableFuture.completedFuture(holds.get() > 0);
        }

        @Override
        public CompletableFuture<Integer> holdCount(long owner) {
            return CompletableFuture.completedFuture(holds.get());
        }

        @Override
        public CompletableFuture<Duration> remainingLease() {
            return CompletableFuture.completedFuture(Duration.ZERO);
        }
    }
}
