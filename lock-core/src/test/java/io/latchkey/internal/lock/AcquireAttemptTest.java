package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.latchkey.internal.wakeup.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The acquire loop below Redis: a {@link ScriptedProtocol} answers the tries, the wake-ups are
 * real {@link UnlockSubscriptions} over fake subscribe calls and a {@link ManualTimer} (whose
 * wait bounds never run out unless a test says so), so each test forces one interleaving.
 */
class AcquireAttemptTest {

    private static final String CHANNEL = "unlock-channel";
    private static final long OWNER = 1;
    private static final Lease LEASE = Lease.watchdog(Duration.ofSeconds(30));

    private final ManualTimer timer = ManualTimer.manual();
    private final UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
            channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);
    private final ScriptedProtocol protocol = new ScriptedProtocol(
            owner -> subscriptions.join(CHANNEL, null), owner -> subscriptions.joinIfSubscribed(CHANNEL, null));

    @Test
    void anAttemptWhoseTryIsInFlightAtCloseFailsWithLockException() {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, OWNER, LEASE, AcquireAttempt.forever());
        protocol.answerHeld(OWNER); // joins the channel, tries again
        assertEquals(2, protocol.tries(OWNER));

        subscriptions.close(); // the client closes while the second try is on the wire
        protocol.answerHeld(OWNER); // which finds the lock held: the attempt goes on to wait

        assertTrue(attempt.result().isDone(), "the wait parked after close() was orphaned: lock() would hang");
        ExecutionException failure = assertThrows(ExecutionException.class, () -> attempt.result().get());
        assertInstanceOf(LockException.class, failure.getCause());
        assertTrue(attempt.settled().isDone());
    }
}
