package io.latchkey.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.time.ManualTimer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The pauses and the deadline of {@link Retries}, on a manual timer: each try is counted, none waited for. */
class RetriesTest {

    private static final RedisException NOT_CONNECTED = new RedisException("Currently not connected. Commands are rejected.");

    private final ManualTimer timer = ManualTimer.manual();
    private final Retries retries = new Retries(timer, timer.ticker(), 20, 80);
    private final AtomicInteger tries = new AtomicInteger();

    @Test
    void aCommandRejectedWhileItsConnectionWasDownIsSentAgainAfterDoublingPausesUntilItIsAnswered() throws Exception {
        CompletableFuture<String> reply = retries.until(answers(NOT_CONNECTED, NOT_CONNECTED, "redis_version:7.0.15"),
                Failures::wasRejectedUnsent, Duration.ofSeconds(2).toNanos());

        assertEquals(1, tries.get());
        timer.advance(Duration.ofMillis(19));
        assertEquals(1, tries.get(), "the first pause is 20 ms");
        timer.advance(Duration.ofMillis(1));
        assertEquals(2, tries.get());
        timer.advance(Duration.ofMillis(39));
        assertEquals(2, tries.get(), "the second pause doubles");
        timer.advance(Duration.ofMillis(1));
        assertEquals(3, tries.get());
        assertEquals("redis_version:7.0.15", reply.get());
        assertEquals(0, timer.pending());
    }

    @Test
    void aFailureThatIsNotPassingEndsTheTriesAtOnce() {
        RedisCommandExecutionException refused = new RedisCommandExecutionException("NOPERM this user has no permissions");
        CompletableFuture<String> reply = retries.until(answers(refused, "never asked"), Failures::wasRejectedUnsent,
                Duration.ofSeconds(2).toNanos());

        ExecutionException failure = assertThrows(ExecutionException.class, reply::get);
        assertSame(refused, failure.getCause());
        assertEquals(1, tries.get());
        assertEquals(0, timer.pending());
    }

    @Test
    void noTryStartsPastTheDeadlineAndTheLastFailureIsReported() {
        CompletableFuture<String> reply = retries.until(answers(NOT_CONNECTED, NOT_CONNECTED, NOT_CONNECTED, NOT_CONNECTED, "late"),
                Failures::wasRejectedUnsent, Duration.ofMillis(100).toNanos());

        timer.advance(Duration.ofMillis(20));
        timer.advance(Duration.ofMillis(40));
        assertEquals(3, tries.get());
        assertTrue(reply.isCompletedExceptionally(), "a third pause of 80 ms would end past 100 ms");
        assertEquals(0, timer.pending());
        ExecutionException failure = assertThrows(ExecutionException.class, reply::get);
        assertSame(NOT_CONNECTED, failure.getCause());
    }

    @Test
    void theTriesEndWithTheLastFailureWhenTheTimerHasStopped() {
        timer.stop();
        CompletableFuture<String> reply = retries.until(answers(NOT_CONNECTED, "never asked"), Failures::wasRejectedUnsent,
                Duration.ofSeconds(2).toNanos());

        assertTrue(reply.isCompletedExceptionally());
        assertEquals(1, tries.get());
        assertFalse(reply.isCancelled());
    }

    @Test
    void aBlockingCallIsMadeAgainAfterAPauseTheTimerEndsAndItsLastFailureIsThrown() throws Exception {
        ManualTimer firing = ManualTimer.firingAtOnce();
        Retries atOnce = new Retries(firing, firing.ticker(), 20, 80);
        Supplier<CompletableFuture<String>> answers = answers(NOT_CONNECTED, NOT_CONNECTED, "redis_version:7.0.15");
        assertEquals("redis_version:7.0.15", atOnce.blocking(() -> answers.get().join(), failure -> true,
                Duration.ofSeconds(2).toNanos()));
        assertEquals(3, tries.get());

        tries.set(0);
        RedisCommandExecutionException refused = new RedisCommandExecutionException("WRONGPASS invalid username-password pair");
        Supplier<CompletableFuture<String>> refusals = answers(refused, "never asked");
        java.util.concurrent.CompletionException thrown = assertThrows(java.util.concurrent.CompletionException.class,
                () -> atOnce.blocking(() -> refusals.get().join(), Failures::wasRejectedUnsent, Duration.ofSeconds(2).toNanos()));
        assertSame(refused, thrown.getCause());
        assertEquals(1, tries.get());
    }

    /** @return a call whose tries answer these in turn: a Throwable fails the try, anything else is its reply */
    private Supplier<CompletableFuture<String>> answers(Object... answers) {
        Deque<Object> left = new ArrayDeque<>(List.of(answers));
        return () -> {
            tries.incrementAndGet();
            Object answer = left.removeFirst();
            return answer instanceof Throwable failure ? CompletableFuture.failedFuture(failure)
                    : CompletableFuture.completedFuture((String) answer);
        };
    }
}
