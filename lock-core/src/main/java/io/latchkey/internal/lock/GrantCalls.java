package io.latchkey.internal.lock;

import io.latchkey.internal.lock.UnsettledCalls.HoldId;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The calls of a fair-lock owner around a hold entered on a grant's message, which go otherwise
 * than one after another's answer: the take of the grant, sent only if the owner's queued try is
 * its only call since (at once, or deferred until due); the release sent behind that take; the
 * deferred take sent first for a query; and the queued try forgotten once the owner leaves the
 * line. They share the owner's {@link CallLine} with {@link UnsettledCalls}, which keeps the line
 * and settles what they leave unsettled; {@link GrantTakes} builds the take and decides when it is
 * due. Thread-safe.
 */
final class GrantCalls {

    private final UnsettledCalls calls;

    GrantCalls(UnsettledCalls calls) {
        this.calls = calls;
    }

    /**
     * Sends a call of an owner at once if the owner's last call on the lock left it waiting in
     * line with {@code secret} ({@link UnsettledCalls#after(HoldId, Supplier, Function)}) and
     * nothing of the owner was admitted, is in flight or is unsettled since; else sends nothing.
     * For a call whose meaning depends on no other call of the owner having reached Redis since
     * that one (the take of a grant made on it): the check and the admission are one step, so no
     * call of the owner can slip in. The secret names the very try: a grant made on an earlier try of the owner
     * (another caller of a shared owner id) may have been taken or ended by the later one.
     *
     * @param hold the owner's hold
     * @param secret the secret of the try that the grant was made on
     * @param token the token of the grant that the call takes, which a call sent behind it names
     *     ({@link #behindTakeOrSettleLater})
     * @param call sends the call, on this thread; a settlement it needs must be registered
     *     ({@link UnsettledCalls#settleLater}) before the future it returns completes
     * @param <T> the reply type
     * @return the call's reply, or null if it was not sent
     */
    <T> @Nullable CompletableFuture<T> afterOnlyQueuedTry(HoldId hold, String secret, long token,
                                                          Supplier<CompletableFuture<T>> call) {
        return afterOnlyQueuedTry(hold, secret, token, call, null);
    }

    /**
     * As {@link #afterOnlyQueuedTry(HoldId, String, long, Supplier)}, the call admitted now and
     * sent by {@code deferred} (null: at once): when due, first when another call of the owner is
     * admitted, or never if a call behind it stands for it ({@link #behindTakeOrSettleLater}).
     *
     * @param deferred sends or cancels {@code call}, whose future it completes; null to send it at once
     * @return as {@link #afterOnlyQueuedTry(HoldId, String, long, Supplier)}
     */
    <T> @Nullable CompletableFuture<T> afterOnlyQueuedTry(HoldId hold, String secret, long token,
                                                          Supplier<CompletableFuture<T>> call,
                                                          @Nullable DeferredCall deferred) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean[] admitted = new boolean[1];
        CallLine line = calls.admitIfPresent(hold, existing -> {
            admitted[0] = existing.admitAfterQueuedTry(secret, token, done, deferred);
        });
        if (line == null || !admitted[0]) {
            return null;
        }
        return UnsettledCalls.relayAfter(UnsettledCalls.send(call), (ok, failure) -> {
            done.complete(null);
            line.finish();
            calls.removeIfIdle(line);
        });
    }

    /**
     * Sends a call of an owner at once, before the answer of its take of a grant
     * ({@link #afterOnlyQueuedTry}), if that take is the owner's only call in flight and nothing of
     * the owner was admitted since nor is unsettled: the release of a hold entered on the grant's
     * message, pipelined behind the take so that the hand-off waits for no answer of it. The call
     * gets the grant's token and must come to the same in Redis whether the take ran before it or
     * not (its send may be lost, or sent again after it): it ends the hold by that token. A lost
     * answer is settled as {@link UnsettledCalls#afterOrSettleLater} settles one, with the same
     * token.
     *
     * @param hold the owner's hold
     * @param what names the call, for logs
     * @param call sends the call, given the grant's token
     * @param deferred as {@link UnsettledCalls#afterOrSettleLater} takes it
     * @param <T> the reply type
     * @return the call's reply, as {@link UnsettledCalls#afterOrSettleLater} answers; or null if
     *     no such take was in flight, and nothing was sent
     */
    <T> @Nullable CompletableFuture<T> behindTakeOrSettleLater(HoldId hold, String what,
                                                               LongFunction<CompletableFuture<T>> call,
                                                               Function<Throwable, ? extends RuntimeException> deferred) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long[] token = new long[1];
        CallLine line = calls.admitIfPresent(hold, existing -> {
            token[0] = existing.admitBehindTake(done);
        });
        if (line == null || token[0] == 0) {
            return null;
        }
        DeferredCall take = line.claimDeferredTake();
        if (take != null) {
            take.cancel(); // the call ends the take's hold by token, also if the timer just sent the take
        }
        Supplier<CompletableFuture<T>> send = () -> call.apply(token[0]);
        CompletableFuture<T> reply = calls.sendOrSettleLater(hold, what, () -> UnsettledCalls.send(send), send::get);
        return UnsettledCalls.relayAfter(reply, (ok, failure) -> {
            done.complete(null);
            line.finish();
            calls.removeIfIdle(line);
        }).handle((answer, failure) -> {
            if (failure == null) {
                return answer;
            }
            throw UnsettledCalls.mustSettle(failure) ? deferred.apply(failure) : UnsettledCalls.completion(failure);
        });
    }

    /**
     * Sends now the owner's call that waits to be sent, if any: a query sent once it is answered
     * finds it run.
     *
     * @param hold the owner's hold
     * @return completes once that call is answered or failed; at once if there was none
     */
    CompletableFuture<Void> sendDeferred(HoldId hold) {
        CallLine line = calls.line(hold);
        DeferredCall deferred = line == null ? null : line.claimDeferredTake();
        if (deferred == null) {
            return CompletableFuture.completedFuture(null);
        }
        deferred.sendNow();
        return deferred.reply().handle((answer, failure) -> null);
    }

    /**
     * The owner left the line (it gave up waiting) without a call through here: its last call no
     * longer stands for a wait, and the line goes once idle.
     *
     * @param hold the owner's hold
     */
    void leftTheQueue(HoldId hold) {
        CallLine line = calls.line(hold);
        if (line != null) {
            line.forgetQueuedTry();
            calls.removeIfIdle(line);
        }
    }
}
