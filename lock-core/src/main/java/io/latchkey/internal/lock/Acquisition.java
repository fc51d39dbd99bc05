package io.latchkey.internal.lock;

import io.latchkey.LockHold;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One running acquisition of a lock, as a lock made of other locks (the multi-lock) drives its
 * parts: the hold it ends with, and a cancel that says when nothing of it is left. A
 * {@link java.util.concurrent.Future#cancel} of the result cannot say that, and an interrupted
 * caller must not return while a part it gave up may still be granted. Thread-safe.
 */
public final class Acquisition {

    private final CompletableFuture<Optional<LockHold>> result;
    private final Supplier<CompletableFuture<Void>> cancel;

    /**
     * @param result the hold once acquired, empty when the wait ran out; fails with the
     *     acquisition's failure
     * @param cancel gives up or gives the grant back, once however often it is called; its future
     *     completes when nothing of the acquisition is left
     */
    public Acquisition(CompletableFuture<Optional<LockHold>> result, Supplier<CompletableFuture<Void>> cancel) {
        this.result = Objects.requireNonNull(result, "result");
        this.cancel = Objects.requireNonNull(cancel, "cancel");
    }

    /** @return the hold once acquired, empty when the wait ran out after cleaning up */
    public CompletableFuture<Optional<LockHold>> result() {
        return result;
    }

    /**
     * Gives up the acquisition: stops its wait, or, if it was granted, releases the level it took.
     *
     * @return completes when nothing of it is left, in Redis or in the client
     */
    public CompletableFuture<Void> cancel() {
        return cancel.get();
    }
}
