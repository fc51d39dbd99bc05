package io.latchkey.internal.wakeup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
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

    @Test
    void aChannelSubscribedAgainWithoutWaitersIsUnsubscribed() {
        List<String> calls = new CopyOnWriteArrayList<>();
        UnlockSubscriptions outage = new UnlockSubscriptions(SubscriptionCommands.of(
                channel -> {
                    calls.add("subscribe " + channel);
                    return CompletableFuture.completedFuture(null);
                },
                channel -> {
                    calls.add("unsubscribe " + channel);
                    // Rejected: the connection is down, so Lettuce still counts the channel as subscribed.
                    return CompletableFuture.failedFuture(new IllegalStateException("Connection is closed"));
                }), timer);
        outage.join(CHANNEL, null).join().close();
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL), calls);

        outage.subscribed(CHANNEL, 1); // the reconnect subscribes every channel Lettuce still counts
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL, "unsubscribe " + CHANNEL), calls,
                "a channel nobody here waits on stays subscribed for the connection's life");

        outage.ssubscribed(CHANNEL, 1); // the same for sharded channels
        assertEquals(4, calls.size());
    }

    @Test
    void aChannelSubscribedAgainWithWaitersStaysAndWakesThem() {
        List<String> calls = new CopyOnWriteArrayList<>();
        UnlockSubscriptions reconnected = new UnlockSubscriptions(SubscriptionCommands.of(
                channel -> {
                    calls.add("subscribe " + channel);
                    return CompletableFuture.completedFuture(null);
                },
                channel -> {
                    calls.add("unsubscribe " + channel);
                    return CompletableFuture.completedFuture(null);
                }), timer);
        Wakeups wakeups = reconnected.join(CHANNEL, null).join();
        CompletableFuture<Void> waited = wakeups.await(wakeups.sequence(), ONE_MINUTE);
        assertFalse(waited.isDone());

        reconnected.subscribed(CHANNEL, 1);
        assertTrue(waited.isDone(), "messages sent while the connection was down are lost: the waiter must re-check");
        assertEquals(List.of("subscribe " + CHANNEL), calls);
    }

    @Test
    void aChannelSubscribedAgainAfterCloseIsLeftToTheClosingConnection() {
        List<String> calls = new CopyOnWriteArrayList<>();
        UnlockSubscriptions closed = new UnlockSubscriptions(SubscriptionCommands.of(
                channel -> {
                    calls.add("subscribe " + channel);
                    return CompletableFuture.completedFuture(null);
                },
                channel -> {
                    calls.add("unsubscribe " + channel);
                    return CompletableFuture.completedFuture(null);
                }), timer);
        closed.join(CHANNEL, null).join();
        closed.close();

        closed.subscribed(CHANNEL, 1);
        assertEquals(List.of("subscribe " + CHANNEL), calls);
    }
}
