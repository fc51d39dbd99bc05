package io.latchkey.internal.wakeup;

import io.netty.util.Timeout;
import java.util.concurrent.CompletableFuture;

/** One parked wait: ends on a signal, its timeout or an interrupt, whichever is first. */
final class PendingWake {

    final String address;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    volatile Timeout timeout;

    PendingWake(String address) {
        this.address = address;
    }

    /** @return true if this call ended the wait, false if it had already ended */
    boolean wake() {
        return done.complete(null);
    }

    void fail(RuntimeException failure) {
        done.completeExceptionally(failure);
    }
}
