package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisConnectionException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The calls around a fair hold entered on a grant's message ({@link GrantCalls}) in the owner's
 * line of calls, below Redis, on a manual timer: the take after the only queued try, deferred or
 * not, and the release behind it.
 */
class GrantCallsTest extends CallLineFixture {


    @Test
    void aCallThatLeftTheOwnerInLineKeepsTheLineForTheTakeUntilTheOwnersNextCall() {
        CompletableFuture<String> queued = new CompletableFuture<>();
        calls.after(HOLD, () -> queued, reply -> reply.startsWith("queued") ? reply : null);
        queued.complete("queued");

        assertEquals(1, calls.pending(), "kept: a grant's take may follow");
        assertNotNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 7, () -> CompletableFuture.completedFuture("taken")));
        assertEquals(0, calls.pending(), "the take was the owner's next call");
        assertNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 7, () -> CompletableFuture.completedFuture("taken again")),
                "only right after the call that left the owner in line");
    }

    @Test
    void aLaterCallThatLeftTheOwnerInLineKeepsTheLineForItsOwnSecretOnly() {
        calls.after(HOLD, () -> CompletableFuture.completedFuture("queued"), reply -> reply.startsWith("queued") ? reply : null);
        calls.after(HOLD, () -> CompletableFuture.completedFuture("queued again"), reply -> reply.startsWith("queued") ? reply : null);

        assertNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 7, () -> CompletableFuture.completedFuture("taken")),
                "a grant made on the earlier call may have been taken or ended by the later one");
        assertNotNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued again", 7, () -> CompletableFuture.completedFuture("taken")));
    }

    @Test
    void anOwnerThatLeavesTheLineOnTheAnswerItselfLeavesNothingKept() {
        CompletableFuture<String> queued = new CompletableFuture<>();
        // As an acquire loop whose wait ran out gives up on that very answer: its callback was
        // registered last, so before the reply was relayed it ran first, and the line was kept
        // after the owner had left it, until the owner's next call on the lock.
        calls.after(HOLD, () -> queued, reply -> reply.startsWith("queued") ? reply : null).thenRun(() -> calls.grants().leftTheQueue(HOLD));

        queued.complete("queued");

        assertEquals(0, calls.pending());
        assertNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 7, () -> CompletableFuture.completedFuture("taken")));
    }

    /** The owner's last call left it in line with the secret "queued"; its take of grant 42 is sent and unanswered. */
    private CompletableFuture<String> takeInFlight() {
        calls.after(HOLD, () -> CompletableFuture.completedFuture("queued"), reply -> reply);
        CompletableFuture<String> take = new CompletableFuture<>();
        assertNotNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 42, () -> {
            sent.add("take");
            return take;
        }));
        return take;
    }

    private @Nullable CompletableFuture<String> releaseBehind(CompletableFuture<String> reply) {
        return calls.grants().behindTakeOrSettleLater(HOLD, "release", token -> {
            sent.add("release of " + token);
            return reply;
        }, failure -> new IllegalStateException("deferred", failure));
    }

    @Test
    void aReleaseGoesOutBehindATakeStillInFlightWithItsTokenAndTheNextCallWaitsForBoth() {
        CompletableFuture<String> take = takeInFlight();
        CompletableFuture<String> release = new CompletableFuture<>();

        assertNotNull(releaseBehind(release));
        assertEquals(List.of("take", "release of 42"), sent, "at once, before the take's answer");
        CompletableFuture<String> next = send("next", CompletableFuture.completedFuture("ok"));
        release.complete("released");
        assertEquals(List.of("take", "release of 42"), sent, "the next call waits for the take too");
        take.complete("taken");
        assertEquals(List.of("take", "release of 42", "next"), sent);
        assertTrue(next.isDone());
        assertEquals(0, calls.pending());
    }

    @Test
    void nothingGoesBehindATakeOnceAnsweredNorBehindACallAfterIt() {
        assertNull(releaseBehind(new CompletableFuture<>()), "no take at all");
        CompletableFuture<String> take = takeInFlight();
        CompletableFuture<String> reentry = new CompletableFuture<>();
        send("re-entry", reentry);
        assertNull(releaseBehind(new CompletableFuture<>()), "a re-entry came after the take: the hold may have more levels");
        take.complete("taken");
        reentry.complete("re-entered");

        takeInFlight().complete("taken");
        assertNull(releaseBehind(new CompletableFuture<>()), "the take was answered: a release goes as any call does");
        assertFalse(sent.stream().anyMatch(call -> call.startsWith("release")));
    }

    @Test
    void aReleaseBehindATakeWhoseAnswerIsLostFailsAsDeferredAndIsSettledWithTheSameToken() {
        CompletableFuture<String> take = takeInFlight();
        CompletableFuture<String> lost = new CompletableFuture<>();
        CompletableFuture<String> release = releaseBehind(lost);
        take.complete("taken");

        lost.completeExceptionally(new RedisConnectionException("reset"));

        assertNotNull(release);
        assertTrue(release.isCompletedExceptionally());
        IllegalStateException deferred = assertThrows(IllegalStateException.class, () -> {
            try {
                release.join();
            } catch (CompletionException e) {
                throw e.getCause();
            }
        });
        assertEquals("deferred", deferred.getMessage());
        assertEquals(List.of("take", "release of 42", "release of 42"), sent, "sent again at once, by the same token");
    }

    /** As {@link #takeInFlight}, the take admitted but left to {@code deferred} to send: its reply is {@code reply}. */
    private DeferredCall deferredTake(CompletableFuture<String> reply) {
        calls.after(HOLD, () -> CompletableFuture.completedFuture("queued"), answer -> answer);
        DeferredCall deferred = new DeferredCall(() -> {
            sent.add("take");
            reply.complete("taken");
        }, () -> reply.complete("never sent"), reply);
        assertNotNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 42, () -> reply, deferred));
        return deferred;
    }

    @Test
    void aDeferredTakeGoesOutOnlyWhenDue() {
        CompletableFuture<String> reply = new CompletableFuture<>();
        DeferredCall take = deferredTake(reply);

        assertEquals(List.of(), sent);
        assertEquals(1, calls.pending());
        take.sendNow();
        take.sendNow();
        assertEquals(List.of("take"), sent, "once");
        assertEquals(0, calls.pending());
    }

    @Test
    void aCallAfterADeferredTakeSendsTheTakeFirst() {
        deferredTake(new CompletableFuture<>());

        CompletableFuture<String> reentry = send("re-entry", CompletableFuture.completedFuture("re-entered"));

        assertEquals(List.of("take", "re-entry"), sent);
        assertTrue(reentry.isDone());
        assertEquals(0, calls.pending());
    }

    @Test
    void aQueryOfTheHoldSendsADeferredTakeFirst() {
        deferredTake(new CompletableFuture<>());

        calls.grants().sendDeferred(HOLD);

        assertEquals(List.of("take"), sent);
    }

    @Test
    void aReleaseBehindADeferredTakeStandsForItAndTheTakeIsNeverSent() {
        CompletableFuture<String> take = new CompletableFuture<>();
        DeferredCall deferred = deferredTake(take);

        CompletableFuture<String> release = releaseBehind(CompletableFuture.completedFuture("ended"));

        assertNotNull(release);
        assertEquals("ended", release.join());
        assertEquals("never sent", take.join());
        deferred.sendNow();
        assertEquals(List.of("release of 42"), sent);
        assertEquals(0, calls.pending());
    }

    @Test
    void aReleaseAfterTheDueTakeWentOutGoesBehindItAndTheNextCallWaitsForBoth() {
        CompletableFuture<String> take = new CompletableFuture<>();
        DeferredCall deferred = new DeferredCall(() -> sent.add("take"), () -> take.complete("never sent"), take);
        calls.after(HOLD, () -> CompletableFuture.completedFuture("queued"), answer -> answer);
        assertNotNull(calls.grants().afterOnlyQueuedTry(HOLD, "queued", 42, () -> take, deferred));
        deferred.sendNow(); // due: sent, not answered yet

        CompletableFuture<String> release = new CompletableFuture<>();
        assertNotNull(releaseBehind(release));
        CompletableFuture<String> next = send("next", CompletableFuture.completedFuture("ok"));

        assertEquals(List.of("take", "release of 42"), sent, "the take was not cancelled, the release went behind it");
        release.complete("ended");
        take.complete("taken");
        assertEquals(List.of("take", "release of 42", "next"), sent);
        assertTrue(next.isDone());
        assertEquals(0, calls.pending());
    }
}
