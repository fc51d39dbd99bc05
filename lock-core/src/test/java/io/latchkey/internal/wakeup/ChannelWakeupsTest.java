package io.latchkey.internal.wakeup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.time.ManualTimer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One attempt's waits on a channel, below Redis: a manual timer and the channel's waiters only. */
class ChannelWakeupsTest {

    private static final long ONE_SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aWaitThatEndsBeforeItIsParkedLeavesNothingParked() {
        ChannelWaiters waiters = new ChannelWaiters("channel");
        // Its timeouts fire inside newTimeout: the wait ends before await() parks it.
        ChannelWakeups wakeups = new ChannelWakeups(waiters, null, ManualTimer.firingAtOnce(), left -> { });

        for (int i = 0; i < 100; i++) {
            CompletableFuture<Void> woken = wakeups.await(wakeups.sequence(), ONE_SECOND);
            assertTrue(woken.isDone(), "the timeout ended the wait");
        }
        assertEquals(0, waiters.parked(), "ended waits left behind in the channel's waiters");
    }

    @Test
    void aWaitParkedAfterItsChannelFailedFailsAtOnce() {
        ChannelWaiters waiters = new ChannelWaiters("channel");
        ChannelWakeups wakeups = new ChannelWakeups(waiters, null, ManualTimer.manual(), left -> { });
        LockException closed = new LockException("the LockClient was closed while waiting");
        waiters.failAll(closed);

        CompletableFuture<Void> woken = wakeups.await(wakeups.sequence(), ONE_SECOND);
        assertTrue(woken.isDone(), "a wait parked after failAll was left waiting");
        CompletionException failure = assertThrows(CompletionException.class, woken::join);
        assertSame(closed, failure.getCause());
        assertEquals(0, waiters.parked());
    }

    @Test
    void aWaitAfterTheTimerStoppedFailsWithLockException() {
        ChannelWaiters waiters = new ChannelWaiters("channel");
        ManualTimer timer = ManualTimer.manual();
        ChannelWakeups wakeups = new ChannelWakeups(waiters, null, timer, left -> { });
        timer.stop();

        CompletableFuture<Void> woken = wakeups.await(wakeups.sequence(), ONE_SECOND);
        assertTrue(woken.isDone());
        CompletionException failure = assertThrows(CompletionException.class, woken::join);
        assertInstanceOf(LockException.class, failure.getCause());
        assertEquals(0, waiters.parked());
    }
}
