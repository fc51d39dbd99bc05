package io.latchkey.contract;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/**
 * Calls that must each throw a {@link LockException} of a given type within a bound while Redis
 * is down or too slow, run side by side, each on a thread of its own and timed from its own
 * start. Each call fails after about a command timeout of its own; one after the other, the rows
 * that check eight of them took eight command timeouts, and the contract runs in a dozen classes.
 * Side by side they take one. Give each call a lock name of its own (unless the row is about one
 * lock), so that no call waits behind another of the same client.
 */
final class FailingCalls {

    private record Call(String name, Class<? extends LockException> type, Executable executable) {
    }

    private final Duration bound;
    private final List<Call> calls = new ArrayList<>();

    /** @param bound how long each call may take to throw, from its own start */
    FailingCalls(Duration bound) {
        this.bound = bound;
    }

    /**
     * @param name the call as the failure message names it
     * @param type the exception it must throw
     * @param executable the call
     * @return this
     */
    FailingCalls expect(String name, Class<? extends LockException> type, Executable executable) {
        calls.add(new Call(name, type, executable));
        return this;
    }

    /** Starts every call at once and asserts that each threw its exception, with a message, in time. */
    void assertEachFailsFast() throws Exception {
        List<CompletableFuture<Executable>> outcomes = new ArrayList<>();
        for (Call call : calls) {
            CompletableFuture<Executable> outcome = new CompletableFuture<>();
            Thread thread = new Thread(() -> outcome.complete(check(call)), "failing-call " + call.name());
            thread.setDaemon(true);
            thread.start();
            outcomes.add(outcome);
        }
        List<Executable> checks = new ArrayList<>();
        for (CompletableFuture<Executable> outcome : outcomes) {
            checks.add(outcome.get(OwnerThread.TASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        }
        assertAll(checks);
    }

    /** Runs the call on this thread; the assertions on its outcome are kept for the test's thread. */
    private Executable check(Call call) {
        long start = System.nanoTime();
        Throwable thrown = null;
        try {
            call.executable().execute();
        } catch (Throwable t) {
            thrown = t;
        }
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Throwable outcome = thrown;
        return () -> {
            LockException failure = assertThrows(call.type(), () -> {
                if (outcome != null) {
                    throw outcome;
                }
            }, call.name() + " with Redis unavailable must throw " + call.type().getSimpleName());
            assertNotNull(failure.getMessage(), call.name() + ": a LockException says what failed");
            assertTrue(took < bound.toMillis(), call.name() + " took " + took + " ms to fail, bound " + bound.toMillis());
        };
    }
}
