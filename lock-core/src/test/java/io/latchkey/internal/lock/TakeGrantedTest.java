package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.redis.ScriptedRedis;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Taking a hold that the kind's release granted (the fair lock's grant at the release), below
 * Redis. The owner entered on the grant's message, confirmed until the grant's bound (the time
 * its place in line lasts); {@link HoldCalls} then takes the hold in Redis with the owner's own
 * lease, and the take's answer decides what the client believes of the lease from then on. Each
 * test chooses when and how that answer comes ({@link ScriptedTakes}) on a manual clock, so the
 * schedule is the one named: the first answer lost, the call sent again to settle it, its answer
 * late, refused or never.
 */
class TakeGrantedTest {

    private static final long OWNER = 7;
    private static final long TOKEN = 42;
    /** The grant lasts in Redis at least until the waiter's last queued try, sent at 0, plus its place. */
    private static final Duration GRANT_BOUND = Duration.ofSeconds(4);
    /** Longer than what is left of the grant when the owner enters. */
    private static final Duration LONG = Duration.ofSeconds(10);
    private static final LeaseTerm LONG_LEASE = LeaseTerm.fixed(LONG);
    /** Shorter than what is left of the grant when the owner enters. */
    private static final Duration SHORT = Duration.ofSeconds(1);
    private static final LeaseTerm SHORT_LEASE = LeaseTerm.fixed(SHORT);
    private static final Duration ENTERED_AT = Duration.ofSeconds(1);

    private final ScriptedRedis redis = new ScriptedRedis();
    private final LockContext context = redis.context("client", LockConfig.builder().address("redis://127.0.0.1:6379").build());
    private final ManualTimer timer = redis.timer();
    private final ScriptedTakes scripts = new ScriptedTakes();
    private final HoldCalls calls = new HoldCalls("fair", "lock", context, scripts);

    @Test
    void aTakeWhoseAnswerIsLostConfirmsTheHoldOnlyUntilTheGrantsBound() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);

        // The take timed out: it may have run (the owner's lease, past the grant's bound) or not,
        // and it is sent again to settle it, which Redis, out of reach, does not answer.
        scripts.failOldest(timedOut());
        assertEquals(2, scripts.takesSent(), "sent again at once to settle it");
        timer.advance(GRANT_BOUND.minus(ENTERED_AT).minusMillis(1));
        assertTrue(hold.isHeld());

        timer.advance(Duration.ofMillis(1));

        // Before 36aba64 it was confirmed until the take's send plus the lease, 11 s: the owner
        // went on believing it held while the grant ran out and the next waiter took the lock.
        assertTrue(hold.isLost(), "the grant may have run out in Redis: the owner stops believing it holds");
        assertEquals("its lease ran out before it was released or renewed", hold.lossReason());
    }

    @Test
    void aTakeWhoseAnswerIsLostConfirmsTheOwnersShorterLeaseOnly() {
        Hold hold = enteredOnTheGrant(SHORT_LEASE);

        scripts.failOldest(timedOut());
        timer.advance(SHORT.minusMillis(1));
        assertTrue(hold.isHeld());
        timer.advance(Duration.ofMillis(1));

        assertTrue(hold.isLost(), "the take may have run and set the owner's lease, shorter than the grant");
    }

    @Test
    void aTakeStillInFlightConfirmsTheOwnersShorterLeaseFromItsSendOnly() {
        Hold hold = enteredOnTheGrant(SHORT_LEASE);

        // Unanswered: Redis may have run it and cut the key to the owner's lease, 1 s from the send,
        // and the next waiter may take the lock then.
        timer.advance(SHORT.minusMillis(1));
        assertTrue(hold.isHeld());
        timer.advance(Duration.ofMillis(1));

        // Before, the hold stayed confirmed until the grant's bound (3 s on) while the take was in flight.
        assertTrue(hold.isLost(), "the take may have set the owner's shorter lease the moment it was sent");
        assertEquals(1, scripts.takesSent());
    }

    @Test
    void aTakeStillInFlightWithALongerLeaseKeepsTheGrantsBound() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);

        timer.advance(GRANT_BOUND.minus(ENTERED_AT).minusMillis(1));
        assertTrue(hold.isHeld(), "the grant lasts until its bound whether the take ran or not");
        timer.advance(Duration.ofMillis(1));

        assertTrue(hold.isLost(), "not beyond the bound before an answer says the take ran");
    }

    @Test
    void aTakeRefusedForGoodLosesTheHoldAtOnceAndEndsItInRedis() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);

        // Not run and not sent again: Redis keeps only the grant, which runs out at its bound.
        scripts.failOldest(new RedisCommandExecutionException("NOPERM this user has no permissions to run the 'hset' command"));

        assertTrue(hold.isLost(), "not counted as held with a lease Redis never set");
        assertTrue(String.valueOf(hold.lossReason()).startsWith("taking the hold its release granted was refused"), hold.lossReason());
        assertEquals(1, scripts.takesSent(), "a refusal for good is not sent again");
        assertTrue(scripts.releasedOrEnded(), "the grant is ended in Redis, so the next waiter need not wait for its bound");
    }

    @Test
    void theAnswerOfTheTakeSentAgainConfirmsTheOwnersLeaseFromTheFirstSend() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);
        scripts.failOldest(timedOut());
        timer.advance(Duration.ofMillis(500));

        scripts.answerOldest(List.of(1L, 1L, TOKEN)); // it ran, the first time or now
        timer.advance(GRANT_BOUND);

        // Before, the answer went nowhere: the hold was given up at the grant's bound (and ended
        // in Redis), although Redis kept it for the owner's lease.
        assertTrue(hold.isHeld(), "held past the grant's bound: Redis keeps the owner's lease");
        long now = timer.ticker().read();
        assertEquals(ENTERED_AT.plus(LONG).toNanos() - now, hold.leaseLeftNanos(now),
                "from the first send: the first may be the one that ran");
    }

    @Test
    void aTakeRefusedForAPassingReasonAndSentAgainConfirmsTheOwnersShorterLease() {
        Hold hold = enteredOnTheGrant(SHORT_LEASE);
        // BUSY: it did not run, the grant stands until its bound, and it is sent again.
        scripts.failOldest(new RedisCommandExecutionException("BUSY Redis is busy running a script"));
        assertEquals(2, scripts.takesSent());
        timer.advance(Duration.ofMillis(100));

        scripts.answerOldest(List.of(1L, 1L, TOKEN));
        timer.advance(SHORT.minusMillis(100));

        assertTrue(hold.isLost(), "the take set the owner's lease, shorter than the grant's bound the hold was confirmed to");
    }

    @Test
    void aTakeSentAgainThatFindsTheGrantGoneLosesTheHoldAtOnce() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);
        scripts.failOldest(timedOut());
        timer.advance(Duration.ofMillis(500));

        scripts.answerOldest(List.of(-1L, 0L)); // neither send ran before the grant was gone

        assertTrue(hold.isLost(), "not only at the grant's bound");
        assertEquals("taking the hold its release granted found it gone from Redis", hold.lossReason());
    }

    @Test
    void anAnsweredTakeConfirmsTheOwnersLeaseLongerOrShorterThanTheGrant() {
        Hold longer = enteredOnTheGrant(LONG_LEASE);
        scripts.answerOldest(List.of(1L, 1L, TOKEN));
        timer.advance(SHORT);
        Hold shorter = enteredOnTheGrant(8, SHORT_LEASE);
        scripts.answerOldest(List.of(1L, 1L, TOKEN));

        timer.advance(SHORT);

        assertTrue(shorter.isLost(), "its own lease ran out before the grant's bound");
        timer.advance(GRANT_BOUND);
        assertTrue(longer.isHeld(), "its own lease outlasts the grant's bound");
        assertEquals(1, scripts.takesSent(8));
        assertEquals(1, scripts.takesSent(OWNER));
    }

    @Test
    void theTakeReentersTheGrantedTokenWithTheOwnersLeaseAndKeepsItsCallIdWhenSentAgain() {
        enteredOnTheGrant(LONG_LEASE);
        scripts.failOldest(timedOut());

        List<ScriptedTakes.Take> sent = scripts.sent();
        assertEquals(2, sent.size());
        assertEquals(Long.toString(TOKEN), sent.get(0).held());
        assertEquals(LONG_LEASE, sent.get(0).lease());
        assertEquals(sent.get(0), sent.get(1), "the same call: its id tells Redis it may have run");
        assertFalse(scripts.releasedOrEnded(), "a take is never undone: the owner holds the level already");
    }

    @Test
    void aTakeSentAgainAndRefusedForGoodLosesTheHold() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);
        scripts.failOldest(timedOut());

        scripts.failOldest(new RedisCommandExecutionException("OOM command not allowed when used memory > 'maxmemory'"));

        assertTrue(hold.isLost(), "not left believed (and renewed as a grant nobody took) until an unlock finds nothing");
        assertTrue(String.valueOf(hold.lossReason()).startsWith("taking the hold its release granted was refused"), hold.lossReason());
    }

    @Test
    void anotherCallOfTheOwnerInFlightMakesTheWaiterTryInsteadOfEnteringOnTheWord() {
        queued(OWNER);
        // Another attempt of the owner (an owner id shared by async callers) has a try in flight:
        // reaching Redis first, it may take the grant with its own, shorter lease, or be undone
        // and delete it, so the grant's bound says nothing any more.
        calls.tryAcquire(OWNER, SHORT_LEASE, 0);

        assertNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "secret of " + OWNER, GRANT_BOUND.toNanos()), "the waiter tries instead");

        scripts.answerOldest(List.of(0L, 30_000L, "another secret"));
        assertNotNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "another secret", GRANT_BOUND.toNanos()),
                "that try left the owner in line, the last call: a grant made on it is the owner's to take");
    }

    @Test
    void aLateWordOfAGrantMadeOnAnEarlierTryOfTheOwnerMakesTheWaiterTry() {
        queued(OWNER);
        // Another attempt of the owner tried after the grant: it took the grant and released it,
        // and its next try left the owner in line again, with another secret. The first attempt's
        // word comes only now. Before, the line's mark said only "the owner's last call left it in
        // line", so the first attempt entered on a grant that was gone (FairGrantSimulation seed 1879).
        calls.tryAcquire(OWNER, SHORT_LEASE, 0);
        scripts.answerOldest(List.of(0L, 30_000L, "another secret"));

        assertNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "secret of " + OWNER, GRANT_BOUND.toNanos()),
                "the word proves the earlier try's secret: the waiter tries instead");
        assertEquals(0, scripts.takesSent());
    }

    @Test
    void aCallOfTheOwnerThatEndedSinceItsLastQueuedTryMakesTheWaiterTry() {
        queued(OWNER);
        // Another attempt's try ran after the grant, took it, and has answered: the line is idle
        // again, but the grant the word tells of is gone or taken.
        calls.tryAcquire(OWNER, SHORT_LEASE, 0);
        scripts.answerOldest(List.of(1L, 1L, TOKEN));

        assertNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "secret of " + OWNER, GRANT_BOUND.toNanos()), "the waiter tries instead");
        assertEquals(0, scripts.takesSent());
    }

    @Test
    void anUnsettledCallOfTheOwnerMakesTheWaiterTryInsteadOfEnteringOnTheWord() {
        queued(OWNER);
        scripts.holdReleases();
        calls.tryAcquire(OWNER, SHORT_LEASE, 0);
        // Its answer lost, the try is undone by a release that Redis has not answered yet: run,
        // it deletes a grant that the try had taken.
        scripts.failOldest(timedOut());
        assertEquals(1, scripts.releasesSent(), "the undo");

        assertNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "secret of " + OWNER, GRANT_BOUND.toNanos()), "the waiter tries instead");
        scripts.answerReleases();
        assertNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "secret of " + OWNER, GRANT_BOUND.toNanos()), "nor once the undo is settled");
    }

    @Test
    void aWaiterThatLeftTheLineDoesNotEnterOnALateWord() {
        timer.advance(ENTERED_AT);
        // As the acquire loop gives up on the answer itself (a wait that ran out): it leaves the
        // line before anything else of the answer's handling here could run after it.
        calls.tryAcquire(OWNER, SHORT_LEASE, 0).thenRun(() -> calls.leftTheQueue(OWNER));
        scripts.answerOldest(List.of(0L, 30_000L, "secret"));

        assertNull(calls.takeGranted(OWNER, LONG_LEASE, TOKEN, "secret", GRANT_BOUND.toNanos()));
        assertEquals(0, context.unsettled().pending(), "nothing of the owner is kept once it left");
    }

    @Test
    void aLaterCallOfTheOwnerGoesBehindTheTake() {
        Hold hold = enteredOnTheGrant(LONG_LEASE);
        calls.tryAcquire(OWNER, SHORT_LEASE, 0);
        assertEquals(2, scripts.acquiresSent(), "the queued try and the take: the later try waits for the take's answer");

        scripts.answerOldest(List.of(1L, 1L, TOKEN));

        assertEquals(3, scripts.acquiresSent());
        assertTrue(hold.isHeld());
    }

    private Hold enteredOnTheGrant(LeaseTerm lease) {
        return enteredOnTheGrant(OWNER, lease);
    }

    /** The owner's last try, sent at {@link #ENTERED_AT}, answered "not acquired" with a secret: it waits in line. */
    private void queued(long owner) {
        if (timer.ticker().read() < ENTERED_AT.toNanos()) {
            timer.advance(ENTERED_AT);
        }
        calls.tryAcquire(owner, SHORT_LEASE, 0);
        scripts.answerOldest(List.of(0L, 30_000L, "secret of " + owner));
    }

    /** What the acquire loop does with a grant told by a message after the owner queued: records it (as LockHolds.admit does) and starts it. */
    private Hold enteredOnTheGrant(long owner, LeaseTerm lease) {
        queued(owner);
        TryResult granted = Objects.requireNonNull(calls.takeGranted(owner, lease, TOKEN, "secret of " + owner, GRANT_BOUND.toNanos()),
                "no other call of the owner is under way");
        TryResult.Grant grant = Objects.requireNonNull(granted.grant());
        Hold hold = context.holds().granted(context.lockId("lock"), "lock", "fair", owner, grant.fencingToken(),
                grant.confirmedUntilNanos(), lease.renewed());
        grant.start(hold);
        return hold;
    }

    private static RuntimeException timedOut() {
        return LockExceptions.timedOut("lock", Duration.ofMillis(500), new RedisCommandTimeoutException("Command timed out"));
    }

    /** The acquire script of a kind, answered by the test, oldest call first; releases and ends answer at once. */
    private static final class ScriptedTakes implements HoldScripts {

        /** One acquire script call. */
        record Take(String field, LeaseTerm lease, String call, String held) {
        }

        private final List<Take> sent = new ArrayList<>();
        private final Deque<CompletableFuture<List<Object>>> unanswered = new ArrayDeque<>();
        private boolean releasedOrEnded;
        private boolean releasesHeld;
        private int releasesSent;
        private final List<CompletableFuture<Long>> heldReleases = new ArrayList<>();

        @Override
        public CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held) {
            sent.add(new Take(field, lease, call, held));
            CompletableFuture<List<Object>> answer = new CompletableFuture<>();
            unanswered.addLast(answer);
            return answer;
        }

        @Override
        public CompletableFuture<Long> release(String field, String call, String mode) {
            releasedOrEnded = true;
            releasesSent++;
            if (!releasesHeld) {
                return CompletableFuture.completedFuture(0L);
            }
            CompletableFuture<Long> answer = new CompletableFuture<>();
            heldReleases.add(answer);
            return answer;
        }

        /** From now on releases wait for {@link #answerReleases}, as from a Redis out of reach. */
        void holdReleases() {
            releasesHeld = true;
        }

        void answerReleases() {
            releasesHeld = false;
            List<CompletableFuture<Long>> answering = new ArrayList<>(heldReleases);
            heldReleases.clear();
            answering.forEach(answer -> answer.complete(0L));
        }

        int releasesSent() {
            return releasesSent;
        }

        @Override
        public CompletableFuture<Long> end(String field, String call, long token) {
            releasedOrEnded = true;
            return CompletableFuture.completedFuture(0L);
        }

        void answerOldest(List<Object> reply) {
            unanswered.removeFirst().complete(reply);
        }

        void failOldest(RuntimeException failure) {
            unanswered.removeFirst().completeExceptionally(failure);
        }

        int acquiresSent() {
            return sent.size();
        }

        int takesSent() {
            return sent().size();
        }

        int takesSent(long owner) {
            return (int) sent().stream().filter(take -> take.field().endsWith(":" + owner)).count();
        }

        /** @return the takes sent: acquire calls that re-enter the granted token, not the owners' tries */
        List<Take> sent() {
            return sent.stream().filter(take -> take.held().equals(Long.toString(TOKEN))).toList();
        }

        /** @return true if a release or an end was sent; the hold's loss ends it in Redis, so only before that */
        boolean releasedOrEnded() {
            return releasedOrEnded;
        }
    }
}
