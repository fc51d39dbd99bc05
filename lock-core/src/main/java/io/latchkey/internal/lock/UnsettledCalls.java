package io.latchkey.internal.lock;

import io.latchkey.internal.redis.Failures;
import io.netty.util.Timer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The calls that change one owner's hold of one lock, one at a time, and the settling of those
 * whose outcome Redis never told us.
 *
 * <p>A call whose connection broke, was reset, or timed out after the command was written may
 * or may not have run. Left alone, an unknown grant holds the lock until its lease runs out (for
 * ever, if the watchdog kept renewing it), and an unknown release leaves the lock held. Each such
 * call is settled here instead: an unknown acquire is undone, an unknown release completed. The
 * settling calls are idempotent in Redis (each names the call it settles, which the lock scripts
 * remember beside the owner's hold as the owner's last call), so running one twice, or after the
 * original did run, does no more than the original call would have done.
 *
 * <p>That memory holds only the owner's last call, so the calls of one hold go one at a time: a
 * call is sent once the one before it has answered or failed and every unsettled call before it
 * is settled. A thread owner makes one call at a time anyway, so this costs it nothing; it
 * orders the calls of an owner id shared by async callers, and those a RedLock makes on one
 * master while an earlier one is still unanswered. Settling starts at once, behind the call it
 * settles on the same connection, and is then retried on the client's timer with a growing
 * pause until Redis answers. A later call of that owner on that lock never takes an unknown
 * grant for a re-entry; while Redis stays unreachable, it fails as any call would. One call goes
 * out before the answer of the one before it: the release of a hold entered on a grant's message,
 * behind its take ({@link GrantCalls#behindTakeOrSettleLater}), as it means the same whether the take ran
 * or not. Thread-safe.
 */
public final class UnsettledCalls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UnsettledCalls.class);

    private final Timer timer;
    /** A line exists while a call of its hold is in flight or unsettled. */
    private final Map<HoldId, CallLine> lines = new ConcurrentHashMap<>();
    private final AtomicLong lastCallId = new AtomicLong();
    private volatile boolean closed;
    private final GrantCalls grants = new GrantCalls(this);

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
     * Runs a call of an owner once its earlier calls on that lock have answered and every unsettled
     * one is settled; at once when there is none, the common case.
     *
     * @param hold the owner's hold
     * @param call sends the call; a settlement it needs must be registered ({@link #settleLater})
     *     before the future it returns completes
     * @param <T> the reply type
     * @return the call's reply; or the failure that kept an earlier call from being settled, in
     *     which case this call was not sent
     */
    public <T> CompletableFuture<T> after(HoldId hold, Supplier<CompletableFuture<T>> call) {
        return after(hold, call, reply -> null);
    }

    /**
     * As {@link #after(HoldId, Supplier)}; and if the reply left the owner waiting in line, with
     * the secret that {@code queuedSecret} reads from it, the line is kept, marked with this call
     * and that secret, until the owner's next call on the lock or {@link GrantCalls#leftTheQueue}: while so
     * marked, {@link GrantCalls#afterOnlyQueuedTry} may send for that secret.
     *
     * @param hold the owner's hold
     * @param call sends the call
     * @param queuedSecret the secret a reply left with the owner's place in line, or null if it
     *     did not leave the owner in line
     * @param <T> the reply type
     * @return as {@link #after(HoldId, Supplier)}
     */
    public <T> CompletableFuture<T> after(HoldId hold, Supplier<CompletableFuture<T>> call,
                                          Function<? super T, @Nullable String> queuedSecret) {
        long[] admission = new long[1];
        CallLine line = lines.compute(hold, (id, existing) -> {
            CallLine admitting = existing == null ? newLine(id) : existing;
            admission[0] = admitting.admit();
            return admitting;
        });
        DeferredCall deferred = line.claimDeferredTake();
        if (deferred != null) {
            deferred.sendNow(); // this call must find it run
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<Void> previous = line.queueBehind(done);
        CompletableFuture<T> reply = previous.isDone() && line.isSettled()
                ? send(call)
                : previous.thenCompose(answered -> line.drain()).thenCompose(settled -> send(call));
        return relayAfter(reply, (ok, failure) -> {
            String secret = failure == null ? queuedSecret.apply(ok) : null;
            if (secret != null) {
                line.keep(admission[0], secret);
            }
            done.complete(null);
            line.finish();
            removeIfIdle(line);
        });
    }

    /**
     * @return the reply, completed once {@code bookkeeping} has run: what a caller does on the
     *     answer (leave the line, send its next call) then finds the line as the answer left it
     */
    static <T> CompletableFuture<T> relayAfter(CompletableFuture<T> reply,
                                               BiConsumer<? super @Nullable T, ? super @Nullable Throwable> bookkeeping) {
        CompletableFuture<T> relayed = new CompletableFuture<>();
        reply.whenComplete((ok, failure) -> {
            try {
                bookkeeping.accept(ok, failure);
            } finally {
                if (failure == null) {
                    relayed.complete(ok);
                } else {
                    relayed.completeExceptionally(failure);
                }
            }
        });
        return relayed;
    }

    /** @return the calls around a hold entered on a fair grant, which share this owner's lines */
    GrantCalls grants() {
        return grants;
    }

    /**
     * Offers a call to the hold's line in one step with the line's check, under the map's lock, so
     * that no other call of the owner slips in and the line is not dropped meanwhile.
     *
     * @param admit checks and admits the call, and tells its caller whether it did
     * @return the line, or null if the hold has none; a line is returned whether or not
     *     {@code admit} admitted the call
     */
    @Nullable CallLine admitIfPresent(HoldId hold, Consumer<CallLine> admit) {
        return lines.computeIfPresent(hold, (id, existing) -> {
            admit.accept(existing);
            return existing;
        });
    }

    /** @return the hold's line, or null if it has none */
    @Nullable CallLine line(HoldId hold) {
        return lines.get(hold);
    }

    static <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
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
        CallLine line = lines.compute(hold, (id, existing) -> {
            CallLine settling = existing == null ? newLine(id) : existing;
            settling.add(what, settle);
            return settling;
        });
        // At once: after a timeout the connection still stands, and the settling call queues
        // right behind the one it settles, so a Redis that was only slow runs both back to back
        // and nobody sees the stray grant. If the connection is down, it fails fast and retries.
        line.drain();
    }

    /**
     * Sends a call that must take effect (a release, a leaving of a queue) at once, not after the
     * hold's earlier calls: if its answer is lost, or Redis refused it for a passing reason (a
     * failover), {@code again} settles it later.
     *
     * @param hold the owner's hold
     * @param what names the call, for logs
     * @param call sends the call
     * @param again sends it again, idempotently, as {@link #settleLater} runs it
     * @param <T> the reply type
     * @return the call's reply, once a settlement it needs is registered
     */
    public <T> CompletableFuture<T> sendOrSettleLater(HoldId hold, String what, Supplier<CompletableFuture<T>> call,
                                                      Supplier<CompletableFuture<?>> again) {
        return call.get().whenComplete((reply, failure) -> {
            if (failure != null && mustSettle(failure)) {
                settleLater(hold, what, again);
            }
        });
    }

    /**
     * As {@link #sendOrSettleLater(HoldId, String, Supplier, Supplier)}, after the hold's earlier
     * calls ({@link #after}); a call that an unsettled earlier one kept from being sent is owed
     * too, and settled the same way.
     *
     * @param hold the owner's hold
     * @param what names the call, for logs
     * @param call sends the call
     * @param again sends it again, idempotently, as {@link #settleLater} runs it
     * @param deferred what the caller is told when the call is left to be settled later, from
     *     why; it must not retry
     * @param <T> the reply type
     * @return the call's reply; fails with {@code deferred} of the failure when the call is left
     *     to be settled later, else as the call failed
     */
    public <T> CompletableFuture<T> afterOrSettleLater(HoldId hold, String what, Supplier<CompletableFuture<T>> call,
                                                       Supplier<CompletableFuture<?>> again,
                                                       Function<Throwable, ? extends RuntimeException> deferred) {
        AtomicBoolean sent = new AtomicBoolean();
        return after(hold, () -> {
            sent.set(true);
            // Registered before the call counts as answered, so the owner's next call comes after it.
            return sendOrSettleLater(hold, what, call, again);
        }).handle((reply, failure) -> {
            if (failure == null) {
                return reply;
            }
            if (!mustSettle(failure)) {
                throw completion(failure);
            }
            if (!sent.get()) {
                // An earlier call could not be settled, so this one never left: it is owed too.
                settleLater(hold, what, again);
            }
            throw deferred.apply(failure);
        });
    }

    static CompletionException completion(Throwable failure) {
        return failure instanceof CompletionException completion ? completion : new CompletionException(failure);
    }

    static boolean mustSettle(Throwable failure) {
        return Failures.isOutcomeUnknown(failure) || Failures.isPassingRefusal(failure);
    }

    /** @return the number of holds with calls in flight or still to settle, for tests and diagnostics */
    public int pending() {
        return lines.size();
    }

    /**
     * Tries once more to settle everything, then stops retrying: what is left is bounded by its
     * lease.
     *
     * @return completes when the last try has answered
     */
    public CompletableFuture<Void> closeAsync() {
        closed = true;
        CompletableFuture<?>[] last = lines.values().stream()
                .map(line -> line.drain().exceptionally(failure -> null))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(last).whenComplete((ok, failure) -> lines.values().stream()
                .filter(line -> !line.isSettled())
                .forEach(line -> log.warn("{} call(s) of {} were not settled before the client closed: their lease bounds them",
                        line.unsettledCount(), line.hold())));
    }

    @Override
    public void close() {
        closeAsync();
    }

    private CallLine newLine(HoldId hold) {
        return new CallLine(hold, timer, () -> closed, this::removeIfIdle);
    }

    /** Drops a line with nothing in flight and nothing to settle; its monitor is taken inside the map's. */
    void removeIfIdle(CallLine line) {
        lines.computeIfPresent(line.hold(), (id, current) -> current == line && line.isIdle() ? null : current);
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
