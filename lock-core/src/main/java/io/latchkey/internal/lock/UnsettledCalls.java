package io.latchkey.internal.lock;

import io.latchkey.internal.redis.LockExceptions;
import io.netty.util.Timer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires and releases whose outcome Redis never told us, and the calls that settle them.
 *
 * <p>A call whose connection broke, was reset, or timed out after the command was written may
 * or may not have run. Left alone, an unknown grant holds the lock until its lease runs out (for
 * ever, if the watchdog kept renewing it), and an unknown release leaves the lock held. Each such
 * call is settled here instead: an unknown acquire is undone, an unknown release completed. The
 * settling calls are idempotent in Redis (each names the call it settles, which the lock scripts
 * remember beside the owner's hold), so running one twice, or after the original did run, does
 * no more than the original call would have done.
 *
 * <p>Settling is per hold (one owner of one lock): it runs in the order the calls were made,
 * retried on the client's timer with a growing pause until Redis answers, and every later call
 * of that owner on that lock waits until its earlier calls are settled, so a later {@code lock()}
 * can never take an unknown grant for a re-entry. While Redis stays unreachable, such a later
 * call fails as any call would. Thread-safe.
 */
public final class UnsettledCalls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UnsettledCalls.class);
    private static final long FIRST_RETRY_MILLIS = 20;
    private static final long MAX_RETRY_MILLIS = 1000;

    private final Timer timer;
    private final Map<HoldId, Backlog> backlogs = new ConcurrentHashMap<>();
    private final AtomicLong lastCallId = new AtomicLong();
    private volatile boolean closed;

    /** @param timer the client's timer, which schedules retries */
    public UnsettledCalls(Timer timer) {
        this.timer = timer;
    }

    /**
     * @return a new id for a call, unique within this client (whose id prefixes every owner
     *     field, so the pair is unique everywhere); the scripts remember it beside the hold
     */
    public String nextCallId() {
        return Long.toString(lastCallId.incrementAndGet(), Character.MAX_RADIX);
    }

    /**
     * Runs a call of an owner once every earlier unsettled call of that owner on that lock is
     * settled; at once when there is none, which is the common case and costs a map lookup.
     *
     * @param hold the owner's hold
     * @param call sends the call
     * @param <T> the reply type
     * @return the call's reply; or the failure that kept an earlier call from being settled, in
     *     which case this call was not sent
     */
    public <T> CompletableFuture<T> after(HoldId hold, Supplier<CompletableFuture<T>> call) {
        Backlog backlog = backlogs.get(hold);
        if (backlog == null) {
            return call.get();
        }
        return backlog.drain().thenCompose(settled -> call.get());
    }

    /**
     * Remembers a call to run once Redis answers, after the hold's other unsettled calls.
     *
     * @param hold the owner's hold
     * @param what names the call, for logs
     * @param settle sends the settling call; it must be idempotent. Once Redis answered it, with
     *     an error reply too, the call counts as settled, unless the error is a passing one (a
     *     failover, a loading server) that a later try can get past
     */
    public void settleLater(HoldId hold, String what, Supplier<CompletableFuture<?>> settle) {
        if (closed) {
            // Calls that fail as the client closes mostly never left it; one that did is bounded by its lease.
            log.debug("{} of {} is unsettled and the client is closed: its lease bounds it", what, hold);
            return;
        }
        Backlog backlog = backlogs.computeIfAbsent(hold, Backlog::new);
        backlog.add(what, settle);
        backlog.drainSoon(FIRST_RETRY_MILLIS);
    }

    /** @return the number of holds with calls still to settle, for tests and diagnostics */
    public int pending() {
        return backlogs.size();
    }

    /**
     * Tries once more to settle everything, then stops retrying: what is left is bounded by its
     * lease.
     *
     * @return completes when the last try has answered
     */
    public CompletableFuture<Void> closeAsync() {
        closed = true;
        CompletableFuture<?>[] last = backlogs.values().stream()
                .map(backlog -> backlog.drain().exceptionally(failure -> null))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(last).whenComplete((ok, failure) -> backlogs.values().forEach(backlog ->
                log.warn("{} call(s) of {} were not settled before the client closed: their lease bounds them",
                        backlog.size(), backlog.hold)));
    }

    @Override
    public void close() {
        closeAsync();
    }

    /** The unsettled calls of one hold, settled one at a time, oldest first. */
    private final class Backlog {

        private final HoldId hold;
        /** Guarded by this. */
        private final Deque<Pending> calls = new ArrayDeque<>();
        /** Guarded by this: the drain in progress, so that at most one runs. */
        private CompletableFuture<Void> draining;
        /** Guarded by this. */
        private long retryMillis = FIRST_RETRY_MILLIS;
        /** Guarded by this. */
        private boolean retryScheduled;

        Backlog(HoldId hold) {
            this.hold = hold;
        }

        synchronized void add(String what, Supplier<CompletableFuture<?>> settle) {
            calls.addLast(new Pending(what, settle));
        }

        synchronized int size() {
            return calls.size();
        }

        /** @return completes when every call is settled, or fails with the first that could not be */
        CompletableFuture<Void> drain() {
            CompletableFuture<Void> run;
            synchronized (this) {
                if (draining != null) {
                    return draining;
                }
                run = new CompletableFuture<>();
                draining = run;
            }
            settleNext(run);
            return run;
        }

        private void settleNext(CompletableFuture<Void> run) {
            Pending next;
            synchronized (this) {
                next = calls.peekFirst();
                if (next == null) {
                    draining = null;
                    retryMillis = FIRST_RETRY_MILLIS;
                    // Removing an empty backlog under its own lock: a call added after this finds
                    // no backlog and makes a new one.
                    backlogs.remove(hold, this);
                }
            }
            if (next == null) {
                run.complete(null);
                return;
            }
            CompletableFuture<?> reply;
            try {
                reply = next.settle.get();
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
            reply = reply.handle((ok, failure) -> {
                if (failure != null && !LockExceptions.isOutcomeUnknown(failure) && !LockExceptions.isPassingRefusal(failure)) {
                    // Redis answered for good: whatever it said, retrying would not change it.
                    log.warn("settling {} of {}: Redis refused it: {}", next.what, hold, failure.getMessage());
                    return null;
                }
                if (failure != null) {
                    throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
                }
                return ok;
            });
            reply.whenComplete((ok, failure) -> {
                if (failure == null) {
                    log.debug("settled {} of {}", next.what, hold);
                    synchronized (this) {
                        calls.pollFirst();
                    }
                    settleNext(run);
                } else {
                    long retryIn;
                    synchronized (this) {
                        draining = null;
                        retryIn = retryMillis;
                        retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
                    }
                    drainSoon(retryIn);
                    run.completeExceptionally(LockExceptions.settleFailed(next.what, hold, failure));
                }
            });
        }

        void drainSoon(long delayMillis) {
            synchronized (this) {
                if (closed || retryScheduled) {
                    return;
                }
                retryScheduled = true;
            }
            try {
                timer.newTimeout(timeout -> {
                    synchronized (this) {
                        retryScheduled = false;
                    }
                    if (!closed) {
                        drain();
                    }
                }, delayMillis, TimeUnit.MILLISECONDS);
            } catch (IllegalStateException timerStopped) {
                synchronized (this) {
                    retryScheduled = false;
                }
            }
        }
    }

    private record Pending(String what, Supplier<CompletableFuture<?>> settle) {
    }

    /**
     * One owner's hold of one lock on one Redis.
     *
     * @param redis the Redis the lock lives on, as its executor names it
     * @param lock the lock hash
     * @param field the owner's field
     */
    public record HoldId(Object redis, String lock, String field) {

        @Override
        public String toString() {
            return "lock '" + lock + "' held by " + field;
        }
    }
}
