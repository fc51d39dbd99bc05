package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The blocking methods rethrow a failure on the caller's thread (for a stack trace that shows the
 * caller) without losing its type: a caller that catches {@link LockTimeoutException} gets one.
 */
class LockFacadeRethrowTest {

    private static final String NAME = "orders:42";

    @Test
    void everyBlockingCallKeepsTheTypeOfTheFailure() {
        RuntimeException[] failures = {
            LockExceptions.timedOut(NAME, Duration.ofSeconds(3), new RedisCommandTimeoutException("late")),
            LockExceptions.unreachable(NAME, new ClosedChannelException()),
            LockExceptions.refused(NAME, new RedisCommandExecutionException("WRONGTYPE Operation against a key")),
            LockExceptions.clientClosed(),
        };
        for (RuntimeException failure : failures) {
            LockFacade lock = new LockFacade(new FailingProtocol(failure), Duration.ofSeconds(30));
            assertRethrownHere(failure, lock::lock);
            assertRethrownHere(failure, () -> lock.tryLock(Duration.ofSeconds(1)));
            assertRethrownHere(failure, lock::unlock);
            assertRethrownHere(failure, lock::isLocked);
        }
    }

    @Test
    void aNonOwnersUnlockStaysAnIllegalMonitorStateException() {
        IllegalMonitorStateException notHeld = LockExceptions.notHeld(NAME, 7);
        assertRethrownHere(notHeld, new LockFacade(new FailingProtocol(notHeld), Duration.ofSeconds(30))::unlock);
    }

    private static void assertRethrownHere(RuntimeException original, Executable call) {
        RuntimeException thrown = assertThrows(RuntimeException.class, call);
        assertEquals(original.getClass(), thrown.getClass(), "the type is kept");
        assertNotSame(original, thrown, "made anew on the caller's thread");
        assertSame(original, thrown.getCause());
        assertEquals(original.getMessage(), thrown.getMessage());
        assertTrue(Arrays.stream(thrown.getStackTrace())
                        .anyMatch(frame -> frame.getClassName().equals(LockFacadeRethrowTest.class.getName())),
                "the stack trace shows the caller");
        assertTrue(thrown instanceof LockException || thrown instanceof IllegalMonitorStateException);
        assertTrue(!(original instanceof LockConnectionException) || thrown instanceof LockConnectionException);
        assertTrue(!(original instanceof LockRefusedException) || thrown instanceof LockRefusedException);
    }

    /** A lock kind whose every Redis call fails with one exception. */
    private static final class FailingProtocol implements LockProtocol {

        private final RuntimeException failure;
        private final HoldRegistry holds = new HoldRegistry(ManualTimer.manual(), Ticker.system());

        FailingProtocol(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Void> release(long owner) {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public HoldRegistry holdRegistry() {
            return holds;
        }

        @Override
        public Object identity() {
            return this;
        }

        @Override
        public CompletableFuture<Void> abandon(long owner) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Wakeups> wakeups(long owner) {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Boolean> forceRelease() {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Boolean> isLocked() {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Integer> holdCount(long owner) {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Duration> remainingLease() {
            return CompletableFuture.failedFuture(failure);
        }
    }
}
