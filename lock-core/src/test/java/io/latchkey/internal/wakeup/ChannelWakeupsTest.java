package io.latchkey.internal.wakeup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
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
}
