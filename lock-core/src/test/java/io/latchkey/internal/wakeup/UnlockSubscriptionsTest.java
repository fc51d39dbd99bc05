package io.latchkey.internal.wakeup;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Subscriptions and their waits below Redis: subscribe calls that succeed at once, a manual timer. */
class UnlockSubscriptionsTest {

    private static final String CHANNEL = "unlock-channel";
    private static final long ONE_MINUTE = TimeUnit.MINUTES.toNanos(1);

    private final ManualTimer timer = ManualTimer.manual();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);

    @Test
    void aWaitStartedAfterCloseFailsWithLockException() {
        Wakeups wakeups = subscriptions.join(CHANNEL, null).join();
        subscriptions.close();

        CompletableFuture<Void> waited = wakeups.await(wakeups.sequence(), ONE_MINUTE);
        assertTrue(waited.isDone(), "a wait parked after close() waits for a timer that is about to stop");
        CompletionException failure = assertThrows(CompletionException.class, waited::join);
        assertInstanceOf(LockException.class, failure.getCause());
    }

    @Test
    void aWaitPendingAtCloseFailsWithLockException() {
        Wakeups wakeups = subscriptions.join(CHANNEL, null).join();
        CompletableFuture<Void> waited = wakeups.await(wakeups.sequence(), ONE_MINUTE);
        subscriptions.close();

        assertTrue(waited.isDone());
        CompletionException failure = assertThrows(CompletionException.class, waited::join);
        assertInstanceOf(LockException.class, failure.getCause());
    }
}
