package io.latchkey.internal.wakeup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.spi.Wakeups;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Subscriptions and their waits below Redis: subscribe calls that succeed at once (or when the
 * test says), a manual timer. Which waiter a message wakes, the reference counts behind
 * SUBSCRIBE and UNSUBSCRIBE, the sequence that keeps a message sent during a try, close and
 * re-subscription after a reconnect.
 */
class UnlockSubscriptionsTest {

    private static final String CHANNEL = "unlock-channel";
    private static final long ONE_MINUTE = TimeUnit.MINUTES.toNanos(1);

    private final ManualTimer timer = ManualTimer.manual();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);

    // ---- who a message wakes -----------------------------------------------------------------

    @Test
    void eachUnaddressedMessageWakesOnlyTheLongestWaitingWaiter() {
        List<CompletableFuture<Void>> waits = List.of(park(null), park(null), park(null));

        subscriptions.message(CHANNEL, "");
        assertEquals(List.of(true, false, false), ended(waits), "one unlock, one waiter: no herd");

        subscriptions.message(CHANNEL, "");
        assertEquals(List.of(true, true, false), ended(waits));
    }

    @Test
    void anAddressedMessageWakesOnlyTheWaiterItNames() {
        CompletableFuture<Void> first = park("first");
        CompletableFuture<Void> second = park("second");

        subscriptions.message(CHANNEL, "second");
        assertEquals(List.of(false, true), ended(List.of(first, second)), "not the longest-waiting one");

        subscriptions.message(CHANNEL, "somebody-elsewhere");
        assertFalse(first.isDone(), "a message for a waiter of another client wakes nobody here");
    }

    @Test
    void theEveryWaiterMessageWakesEveryWaiterOfItsChannelThatJoinedForItAndNoOther() {
        String readers = UnlockSubscriptions.EVERY_WAITER;
        List<CompletableFuture<Void>> waits = List.of(park(readers), park(readers), park(null), park("named"));
        Wakeups elsewhere = subscriptions.join("another-channel", readers).join();
        CompletableFuture<Void> otherChannel = elsewhere.await(elsewhere.sequence(), ONE_MINUTE);

        subscriptions.message(CHANNEL, UnlockSubscriptions.EVERY_WAITER);

        // Before, a '*' that anyone may publish on a plain lock's channel woke every waiter, and
        // each ran a script for nothing (issue 27, finding 2).
        assertEquals(List.of(true, true, false, false), ended(waits), "readers that can all go wake all at once; no other");
        assertFalse(otherChannel.isDone());
    }

    @Test
    void aWakeOfEveryWaiterOnAChannelWithoutSuchWaitersDoesNotCountForOneBusyTrying() {
        Wakeups trying = subscriptions.join(CHANNEL, null).join();
        long seen = trying.sequence();

        subscriptions.message(CHANNEL, UnlockSubscriptions.EVERY_WAITER);

        // Before, the forged message was counted, and the waiter's next wait ended at once: one
        // script more per forged message for every waiter busy trying (review of issue 27).
        assertFalse(trying.await(seen, ONE_MINUTE).isDone());
    }

    @Test
    void waitersThatParkAgainAsTheyAreWokenAreWokenOnceByAWakeOfEveryWaiter() {
        AtomicInteger woken = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            parkAgainWhenWoken(subscriptions.join(CHANNEL, UnlockSubscriptions.EVERY_WAITER).join(), woken);
        }

        subscriptions.message(CHANNEL, UnlockSubscriptions.EVERY_WAITER);
        assertEquals(2, woken.get(), "waits parked after the message are not the message's to end");
        subscriptions.subscribed(CHANNEL, 1); // as after a reconnect: every waiter re-checks
        assertEquals(4, woken.get(), "waits parked after the re-subscription are not the re-subscription's to end");
    }

    /**
     * Parks as an attempt whose next try is answered at once, by the client itself (as with local
     * hand-off): within each wake-up, on the thread that delivers the message, it parks again.
     */
    private static void parkAgainWhenWoken(Wakeups wakeups, AtomicInteger woken) {
        wakeups.await(wakeups.sequence(), ONE_MINUTE).thenRun(() -> {
            if (woken.incrementAndGet() < 100) {
                parkAgainWhenWoken(wakeups, woken);
            }
        });
    }

    @Test
    void theEveryWaiterMessageAlsoEndsTheNextWaitOfAWaiterThatWasTrying() {
        Wakeups trying = subscriptions.join(CHANNEL, UnlockSubscriptions.EVERY_WAITER).join();
        long seen = trying.sequence();
        CompletableFuture<Void> parked = park(UnlockSubscriptions.EVERY_WAITER);

        subscriptions.message(CHANNEL, UnlockSubscriptions.EVERY_WAITER);

        assertTrue(parked.isDone());
        assertTrue(trying.await(seen, ONE_MINUTE).isDone(), "the message came during the try: it must not be lost");
    }

    @Test
    void aMessageOnAnotherChannelWakesNobody() {
        CompletableFuture<Void> waiting = park(null);

        subscriptions.message("another-channel", "");

        assertFalse(waiting.isDone());
    }

    @Test
    void aMessageThatCameWhileTheWaiterWasTryingEndsItsNextWaitAtOnce() {
        Wakeups wakeups = subscriptions.join(CHANNEL, null).join();
        long seen = wakeups.sequence(); // read before the try
        subscriptions.message(CHANNEL, ""); // the unlock comes while the try is on the wire: nobody is parked

        CompletableFuture<Void> waited = wakeups.await(seen, ONE_MINUTE);

        assertTrue(waited.isDone(), "the unlock was lost: the waiter sleeps out the holder's lease");
        assertFalse(wakeups.await(wakeups.sequence(), ONE_MINUTE).isDone(), "a message seen before the try counts once");
    }

    @Test
    void aMessageNamingAnotherWaiterThatCameWhileTheWaiterWasTryingDoesNotEndItsNextWait() {
        Wakeups trying = subscriptions.join(CHANNEL, "first").join();
        long seen = trying.sequence(); // read before the try
        // The fair lock names the waiter that must act: the head it granted, the new first.
        subscriptions.message(CHANNEL, "second");
        subscriptions.message(CHANNEL, "second 42 proof");

        // Before, any message counted for every attempt: each one busy trying then tried once
        // more, about one and a half futile tries per fair hand-off among 8 waiters.
        assertFalse(trying.await(seen, ONE_MINUTE).isDone(), "nothing for it came during its try");
    }

    @Test
    void aMessageNamingTheWaiterThatCameWhileItWasTryingEndsItsNextWaitAtOnce() {
        Wakeups trying = subscriptions.join(CHANNEL, "first").join();
        Wakeups other = subscriptions.join(CHANNEL, "second").join();
        long seen = trying.sequence();
        long otherSeen = other.sequence();
        subscriptions.message(CHANNEL, "first");

        assertTrue(trying.await(seen, ONE_MINUTE).isDone(), "the message named it while its try was on the wire");
        assertFalse(other.await(otherSeen, ONE_MINUTE).isDone());
        Wakeups granted = subscriptions.join(CHANNEL, "third").join();
        long grantedSeen = granted.sequence();
        subscriptions.message(CHANNEL, "third 42 proof");
        assertTrue(granted.await(grantedSeen, ONE_MINUTE).isDone(), "a grant's message counts for the attempt it names");
    }

    @Test
    void anUnaddressedMessageOrASubscriptionMadeAgainDuringATryStillCountsForAnAddressedWaiter() {
        Wakeups trying = subscriptions.join(CHANNEL, "first").join();
        long seen = trying.sequence();
        subscriptions.message(CHANNEL, "");
        assertTrue(trying.await(seen, ONE_MINUTE).isDone());

        long seenAgain = trying.sequence();
        subscriptions.subscribed(CHANNEL, 1); // the connection came back: messages may have been lost
        assertTrue(trying.await(seenAgain, ONE_MINUTE).isDone());
    }

    @Test
    void aGrantForAnOwnerWithTwoAttemptsCountsForBothAndGivesTheWordToTheOldestOnly() {
        Wakeups oldest = subscriptions.join(CHANNEL, "shared").join();
        Wakeups younger = subscriptions.join(CHANNEL, "shared").join();
        long oldestSeen = oldest.sequence();
        long youngerSeen = younger.sequence();

        subscriptions.message(CHANNEL, "shared 42 proof");

        assertEquals("42 proof", oldest.takeWord());
        assertNull(younger.takeWord(), "the word is used at most once here");
        assertTrue(oldest.await(oldestSeen, ONE_MINUTE).isDone());
        assertTrue(younger.await(youngerSeen, ONE_MINUTE).isDone(), "the owner's other try may have met the grant");
    }

    @Test
    void aWaiterWokenByAMessageThatItCannotUseHandsItOn() {
        Wakeups first = subscriptions.join(CHANNEL, null).join();
        CompletableFuture<Void> firstWait = first.await(first.sequence(), ONE_MINUTE);
        CompletableFuture<Void> secondWait = park(null);

        subscriptions.message(CHANNEL, "");
        assertEquals(List.of(true, false), ended(List.of(firstWait, secondWait)));

        first.handOn(); // its try failed, or it gave up
        assertTrue(secondWait.isDone(), "the unlock died with the first waiter: the second sleeps out the lease");
    }

    @Test
    void aWaiterWhoseWaitRanOutHandsNothingOn() {
        Wakeups first = subscriptions.join(CHANNEL, null).join();
        first.await(first.sequence(), TimeUnit.MILLISECONDS.toNanos(100));
        CompletableFuture<Void> secondWait = park(null);

        timer.advance(Duration.ofMillis(100));
        first.handOn();

        assertFalse(secondWait.isDone(), "a timeout is no unlock: waking the next waiter would only cost a try");
    }

    // ---- reference counting ------------------------------------------------------------------

    @Test
    void aChannelIsSubscribedByItsFirstWaiterAndUnsubscribedByItsLast() {
        List<String> calls = new CopyOnWriteArrayList<>();
        UnlockSubscriptions counted = new UnlockSubscriptions(recording(calls, CompletableFuture.completedFuture(null)), timer);

        Wakeups first = counted.join(CHANNEL, null).join();
        Wakeups second = counted.join(CHANNEL, null).join();
        assertEquals(List.of("subscribe " + CHANNEL), calls);

        first.close();
        first.close(); // idempotent: it must not drop the second waiter's reference
        assertEquals(List.of("subscribe " + CHANNEL), calls);

        second.close();
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL), calls);

        counted.join(CHANNEL, null).join();
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL, "subscribe " + CHANNEL), calls,
                "a waiter after the last one left subscribes again");
    }

    @Test
    void withALingerAChannelStaysSubscribedForWaitersThatComeBackAndLeavesAfterIt() {
        List<String> calls = new CopyOnWriteArrayList<>();
        UnlockSubscriptions lingering = new UnlockSubscriptions(recording(calls, CompletableFuture.completedFuture(null)),
                timer, Duration.ofMillis(500));

        lingering.join(CHANNEL, null).join().close();
        timer.advance(Duration.ofMillis(400));
        Wakeups back = lingering.join(CHANNEL, null).join();
        assertEquals(List.of("subscribe " + CHANNEL), calls, "a waiter within the linger needs no SUBSCRIBE");
        back.close();
        Wakeups ready = lingering.joinIfSubscribed(CHANNEL, null);
        assertNotNull(ready, "a lingering channel is joined without a round trip");
        ready.close();
        timer.advance(Duration.ofMillis(400));
        assertEquals(List.of("subscribe " + CHANNEL), calls, "each leave starts the linger anew");

        timer.advance(Duration.ofMillis(200));
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL), calls, "unsubscribed after the linger");
        lingering.join(CHANNEL, null).join();
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL, "subscribe " + CHANNEL), calls);
    }

    @Test
    void noticesGoToTheChannelsObserversOnly() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Runnable stop = subscriptions.observe(CHANNEL, seen::add, () -> seen.add("lost"));
        CompletableFuture<Void> wait = park(null);

        subscriptions.message(CHANNEL, "!force:7");
        subscriptions.message("another-channel", "!force:8");
        assertEquals(List.of("!force:7"), seen);
        assertFalse(wait.isDone(), "a notice names no waiter");

        stop.run();
        subscriptions.message(CHANNEL, "!force:9");
        assertEquals(List.of("!force:7"), seen);
    }

    @Test
    void aLostConnectionIsToldToEveryObserverUntilItStops() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Runnable stopOne = subscriptions.observe(CHANNEL, seen::add, () -> seen.add("lost 1"));
        subscriptions.observe("another-channel", seen::add, () -> seen.add("lost 2"));

        subscriptions.connectionLost();
        assertEquals(List.of("lost 1", "lost 2"), seen);

        stopOne.run();
        subscriptions.connectionLost();
        assertEquals(List.of("lost 1", "lost 2", "lost 2"), seen);
    }

    @Test
    void joinIfSubscribedJoinsOnlyASubscriptionRedisConfirmed() {
        List<String> calls = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> confirmation = new CompletableFuture<>();
        UnlockSubscriptions counted = new UnlockSubscriptions(recording(calls, confirmation), timer);
        assertNull(counted.joinIfSubscribed(CHANNEL, null), "nobody subscribed");

        CompletableFuture<Wakeups> joining = counted.join(CHANNEL, null);
        assertNull(counted.joinIfSubscribed(CHANNEL, null), "a try before the confirmation could miss the unlock");

        confirmation.complete(null);
        Wakeups joinedEarly = joining.join();
        Wakeups joinedLate = counted.joinIfSubscribed(CHANNEL, null);
        assertNotNull(joinedLate);
        assertEquals(List.of("subscribe " + CHANNEL), calls, "no round trip for the second waiter");

        joinedEarly.close();
        assertEquals(List.of("subscribe " + CHANNEL), calls, "the late joiner holds a reference too");
        joinedLate.close();
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL), calls);
    }

    @Test
    void aFailedSubscribeFailsEveryJoinWithLockExceptionAndLeavesNothingBehind() {
        List<String> calls = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> refused = CompletableFuture.failedFuture(new IllegalStateException("Connection is closed"));
        UnlockSubscriptions failing = new UnlockSubscriptions(recording(calls, refused), timer);

        CompletionException failure = assertThrows(CompletionException.class, () -> failing.join(CHANNEL, null).join());
        assertInstanceOf(LockException.class, failure.getCause());
        assertEquals(List.of("subscribe " + CHANNEL, "unsubscribe " + CHANNEL), calls, "the reference was dropped");
        assertNull(failing.joinIfSubscribed(CHANNEL, null));
    }

    private CompletableFuture<Void> park(String address) {
        Wakeups wakeups = subscriptions.join(CHANNEL, address).join();
        return wakeups.await(wakeups.sequence(), ONE_MINUTE);
    }

    private static List<Boolean> ended(List<CompletableFuture<Void>> waits) {
        return waits.stream().map(CompletableFuture::isDone).toList();
    }

    private static SubscriptionCommands recording(List<String> calls, CompletableFuture<Void> subscribed) {
        return SubscriptionCommands.of(
                channel -> {
                    calls.add("subscribe " + channel);
                    return subscribed;
                },
                channel -> {
                    calls.add("unsubscribe " + channel);
                    return CompletableFuture.completedFuture(null);
                });
    }

    // ---- close and reconnect -----------------------------------------------------------------

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
