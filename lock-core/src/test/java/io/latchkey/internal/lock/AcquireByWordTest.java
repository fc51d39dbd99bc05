package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A grant told by the wake-up message (the fair lock's release grants the next waiter and sends
 * the token): the acquire loop enters on it without a try, but only on a word that came after a
 * try answered "not acquired", so that the grant it tells of came after that try ran, and that
 * the kind finds right for that try's secret, offered once. Below Redis: the
 * {@link ScriptedProtocol} answers tries and takes a word {@code <token> <secret>} for a grant; the
 * wake-ups are real {@link UnlockSubscriptions}, addressed by the owner's name; time is manual,
 * so each test chooses the interleaving of the message and the tries.
 */
class AcquireByWordTest {

    private static final String CHANNEL = "unlock-channel";
    private static final long OWNER = 1;
    private static final String NAME = "client:1";
    private static final LeaseTerm LEASE = LeaseTerm.watchdog(Duration.ofSeconds(30));

    private final ManualTimer timer = ManualTimer.manual();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);
    private final ScriptedProtocol protocol = new ScriptedProtocol(
            owner -> subscriptions.join(CHANNEL, "client:" + owner),
            owner -> subscriptions.joinIfSubscribed(CHANNEL, "client:" + owner), timer.ticker());

    /** Starts an attempt and answers its first two tries "queued": it waits, subscribed. */
    private AcquireAttempt waiting(long owner) {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), owner, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(owner); // subscribes, tries again
        protocol.answerHeld(owner); // waits
        return attempt;
    }

    @Test
    void aGrantMessageWithATokenEntersTheWaitingAttemptWithoutATry() {
        AcquireAttempt attempt = waiting(OWNER);
        long queuedSent = protocol.lastTryNanos();
        String secret = protocol.lastSecret(OWNER);
        timer.advance(Duration.ofMillis(5));

        subscriptions.message(CHANNEL, NAME + " 42 " + secret);

        Hold hold = done(attempt.result());
        assertNotNull(hold);
        assertEquals(42, hold.token());
        assertEquals(2, protocol.tries(OWNER), "no try: the message was the grant");
        assertEquals(List.of("42 " + secret + "@" + queuedSent), protocol.wordsOffered(),
                "the bound runs from the last queued try's send");
    }

    @Test
    void aGrantMessageThatCameWhileATryWasInFlightIsUsedOnceThatTryAnswersQueued() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(OWNER); // subscribes, tries again
        long secondSent = protocol.lastTryNanos();
        String secret = protocol.lastSecret(OWNER);

        subscriptions.message(CHANNEL, NAME + " 42 " + secret); // the try ran before the grant, its answer still on the wire
        assertFalse(attempt.result().isDone());
        protocol.answerHeld(OWNER);

        assertEquals(42, done(attempt.result()).token());
        assertEquals(2, protocol.tries(OWNER));
        assertEquals(List.of("42 " + secret + "@" + secondSent), protocol.wordsOffered());
    }

    @Test
    void aGrantMessageThatCameWhileATryWasInFlightIsDroppedWhenThatTryTookTheLock() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(OWNER);

        subscriptions.message(CHANNEL, NAME + " 42 " + protocol.lastSecret(OWNER));
        protocol.answerGranted(OWNER); // the try ran after the grant, and took it

        assertNotNull(done(attempt.result()));
        assertEquals(List.of(), protocol.wordsOffered(), "the try's own grant counts, the word is never offered");
    }

    @Test
    void aWordThatCameBeforeAFailedTryIsDroppedAndTheNextTryDecides() {
        protocol.retryingOn(timer, Duration.ofSeconds(3));
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, TimeUnit.SECONDS.toNanos(10));
        protocol.answerHeld(OWNER);

        subscriptions.message(CHANNEL, NAME + " 42 " + protocol.lastSecret(OWNER));
        // The try's answer was lost: it may have taken the grant, and its undo given it back.
        protocol.answerFailure(OWNER, LockExceptions.unreachable("scripted", new ClosedChannelException()));
        timer.advance(Duration.ofSeconds(1));

        assertEquals(3, protocol.tries(OWNER), "tried again after the outage's pause, not entered on the word");
        assertEquals(List.of(), protocol.wordsOffered());
        protocol.answerGranted(OWNER);
        assertNotNull(done(attempt.result()));
    }

    @Test
    void aWordTheKindDoesNotTakeLeadsToATry() {
        AcquireAttempt attempt = waiting(OWNER);

        subscriptions.message(CHANNEL, NAME + " not-a-token");

        assertEquals(3, protocol.tries(OWNER));
        assertEquals(1, protocol.wordsOffered().size());
        protocol.answerGranted(OWNER);
        assertNotNull(done(attempt.result()));
    }

    @Test
    void aWordWithTheSecretOfAnEarlierTryLeadsToATry() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        String earlier = protocol.lastSecret(OWNER);
        protocol.answerHeld(OWNER); // subscribes, tries again with a new secret
        protocol.answerHeld(OWNER);

        // A real grant's word for the first try, sent again (or late): the last try left another secret.
        subscriptions.message(CHANNEL, NAME + " 42 " + earlier);

        assertEquals(3, protocol.tries(OWNER), "it tried instead");
        assertFalse(attempt.result().isDone());
        protocol.answerGranted(OWNER);
        assertNotNull(done(attempt.result()));
    }

    @Test
    void aGrantMessageGoesToTheWaiterItNamesOnlyAndToOneAttemptOfIt() {
        AcquireAttempt other = waiting(2);
        // The channel is subscribed now: each later attempt joins it before its first try.
        AcquireAttempt first = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        String firstSecret = protocol.lastSecret(OWNER);
        protocol.answerHeld(OWNER);
        AcquireAttempt second = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(OWNER);

        subscriptions.message(CHANNEL, NAME + " 42 " + firstSecret);

        assertNotNull(done(first.result()), "the oldest attempt of the owner named");
        assertFalse(second.result().isDone(), "a word is used once");
        assertFalse(other.result().isDone());
        assertEquals(2, protocol.tries(OWNER), "the other attempt of the owner was not sent to try");
        assertEquals(2, protocol.tries(2));
        assertEquals(1, protocol.wordsOffered().size());
    }

    @Test
    void anAttemptWhoseWaitRanOutIgnoresALateWordAndAbandons() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, TimeUnit.SECONDS.toNanos(1));
        protocol.answerHeld(OWNER);
        protocol.answerHeld(OWNER);
        timer.advance(Duration.ofSeconds(1)); // the wait runs out: the attempt tries once more
        subscriptions.message(CHANNEL, NAME + " 42 " + protocol.lastSecret(OWNER));

        String lastSecret = protocol.lastSecret(OWNER);
        protocol.answerHeld(OWNER);

        assertNull(done(attempt.result()));
        assertTrue(protocol.abandons(OWNER) > 0, "abandon gives the grant back in Redis");
        assertEquals(List.of(lastSecret), protocol.abandonSecrets(), "made on its last try, the grant is its to give back");
    }

    @Test
    void eachAttemptOfAnOwnerAbandonsWithTheSecretOfItsOwnLastTry() {
        // Two attempts of one owner share its place in line: a grant made on the try of one may
        // be entered by it while the other gives up, which must then not give the grant back.
        AcquireAttempt shortWait = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, TimeUnit.SECONDS.toNanos(1));
        protocol.answerHeld(OWNER); // subscribes, tries again
        protocol.answerHeld(OWNER);
        AcquireAttempt longWait = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, TimeUnit.SECONDS.toNanos(5));
        protocol.answerHeld(OWNER);
        timer.advance(Duration.ofSeconds(1)); // the short wait runs out: that attempt tries once more
        String shortWaitSecret = protocol.lastSecret(OWNER);
        protocol.answerHeld(OWNER);
        assertNull(done(shortWait.result()));

        timer.advance(Duration.ofSeconds(4)); // and so does the long one
        String longWaitSecret = protocol.lastSecret(OWNER);
        protocol.answerHeld(OWNER);

        assertNull(done(longWait.result()));
        assertEquals(List.of(shortWaitSecret, longWaitSecret), protocol.abandonSecrets());
    }

    @Test
    void aCancelledAttemptAbandonsWithTheSecretOfTheTryAnsweredAfterTheCancel() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());
        String secret = protocol.lastSecret(OWNER);

        attempt.cancel();
        protocol.answerHeld(OWNER); // the try queued: its place, and any grant made on it, are the attempt's

        assertTrue(attempt.settled().isDone());
        assertEquals(List.of(secret), protocol.abandonSecrets());
    }

    @Test
    void anAttemptWhoseOnlyTryFailedAbandonsWithoutASecret() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, new LockHolds(protocol), OWNER, LEASE, AcquireAttempt.forever());

        protocol.answerFailure(OWNER, LockExceptions.unreachable("scripted", new ClosedChannelException()));

        assertTrue(attempt.result().isCompletedExceptionally());
        assertEquals(List.of(""), protocol.abandonSecrets());
    }

    private static <T> T done(CompletableFuture<T> future) {
        assertTrue(future.isDone(), "not done");
        return future.join();
    }
}
