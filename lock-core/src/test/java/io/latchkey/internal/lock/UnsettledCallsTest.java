package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The ordering of one hold's calls and their settling, below Redis, on a manual timer. */
class UnsettledCallsTest extends CallLineFixture {

    private static final HoldId OTHER = new HoldId("redis", "lock", "client:2");

    @Test
    void aCallWaitsUntilTheOwnersCallBeforeItHasAnswered() {
        CompletableFuture<String> first = new CompletableFuture<>();
        send("first", first);
        CompletableFuture<String> second = send("second", CompletableFuture.completedFuture("ok"));

        assertEquals(List.of("first"), sent, "the second waits for the first's answer");
        first.complete("ok");
        assertEquals(List.of("first", "second"), sent);
        assertTrue(second.isDone());
    }

    @Test
    void anotherOwnersCallIsNotHeldUp() {
        send("first", new CompletableFuture<>());
        CompletableFuture<String> other = calls.after(OTHER, () -> CompletableFuture.completedFuture("ok"));

        assertTrue(other.isDone());
    }

    /**
     * A RedLock sends a second acquire to a master while the first is still unanswered. Before
     * calls were ordered, both ran in Redis, and the first one's undo found the second's id as the
     * owner's last call and did nothing: a hold was left behind.
     */
    @Test
    void anUnknownCallIsSettledBeforeTheOwnersNextCallIsSent() {
        CompletableFuture<String> lost = new CompletableFuture<>();
        CompletableFuture<String> undo = new CompletableFuture<>();
        calls.after(HOLD, () -> {
            sent.add("acquire");
            return lost.whenComplete((ok, failure) -> calls.settleLater(HOLD, "undo", () -> {
                sent.add("undo");
                return undo;
            }));
        });
        CompletableFuture<String> next = send("next", CompletableFuture.completedFuture("ok"));

        lost.completeExceptionally(new RedisConnectionException("reset"));
        assertEquals(List.of("acquire", "undo"), sent, "the undo goes out at once, the next call waits for it");
        undo.complete("undone");
        assertEquals(List.of("acquire", "undo", "next"), sent);
        assertTrue(next.isDone());
        assertEquals(0, calls.pending(), "nothing is left once all is answered");
    }

    @Test
    void whileASettlementCannotReachRedisTheNextCallFailsUnsentAndTheSettlementIsRetried() {
        AtomicInteger tries = new AtomicInteger();
        calls.settleLater(HOLD, "release", () -> tries.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(new RedisConnectionException("down"))
                : CompletableFuture.completedFuture(0L));

        CompletableFuture<String> next = send("next", CompletableFuture.completedFuture("ok"));

        assertTrue(next.isCompletedExceptionally(), "it would have gone out before the release");
        assertFalse(sent.contains("next"));
        timer.advance(Duration.ofSeconds(1));
        assertEquals(3, tries.get(), "retried on the timer until Redis answered");
        assertEquals(0, calls.pending());
        assertTrue(send("later", CompletableFuture.completedFuture("ok")).isDone());
    }
}
