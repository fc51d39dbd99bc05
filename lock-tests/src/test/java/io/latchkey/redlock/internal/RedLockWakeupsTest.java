package io.latchkey.redlock.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.wakeup.Wakeups;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RedLockWakeups without Redis: an interrupt that finds no wait parked is not lost. The acquire
 * loop checks whether its attempt is over, then parks the next wait; a cancel or an interrupt
 * that lands between the two would otherwise be heard by nobody, and the wait would run its
 * whole bound (forever, for {@code lock()} against a key without expiry).
 */
class RedLockWakeupsTest {

    /** Far longer than any test here may take, so that a wait that runs it out fails the test. */
    private static final long LONG_WAIT_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private final Timer timer = new HashedWheelTimer();
    private final RedLockWakeups wakeups = new RedLockWakeups(List.of(), timer, TimeUnit.MILLISECONDS.toNanos(1));

    @AfterEach
    void stopTimer() {
        wakeups.close();
        timer.stop();
    }

    @Test
    void anInterruptBeforeTheFirstWaitEndsThatWaitAtOnce() throws Exception {
        wakeups.interrupt();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void anInterruptBetweenTwoWaitsEndsTheNextWaitAtOnce() throws Exception {
        CompletableFuture<Void> first = wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS);
        wakeups.interrupt();
        assertEndsPromptly(first);

        // The attempt checked that it is not over, then was cancelled before parking again.
        wakeups.interrupt();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void anInterruptAfterAWaitRanOutEndsTheNextWaitAtOnce() throws Exception {
        assertEndsPromptly(wakeups.await(wakeups.sequence(), TimeUnit.MILLISECONDS.toNanos(20)));

        wakeups.interrupt();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void anInterruptEndsOneWaitOnly() throws Exception {
        wakeups.interrupt();
        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));

        CompletableFuture<Void> next = wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS);

        assertFalse(next.isDone(), "an interrupt that was heard once ended a later wait too");
        wakeups.interrupt();
        assertEndsPromptly(next);
    }

    @Test
    void aWaitAfterCloseEndsAtOnce() throws Exception {
        wakeups.close();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    private static void assertEndsPromptly(CompletableFuture<Void> wait) throws Exception {
        wait.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(wait.isDone());
    }
}
