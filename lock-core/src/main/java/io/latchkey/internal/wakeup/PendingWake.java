package io.latchkey.internal.wakeup;

import io.netty.util.Timeout;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** One parked wait: ends on a signal, its timeout or an interrupt, whichever is first. */
final class PendingWake {

    final @Nullable String address;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    volatile @Nullable Timeout timeout;
    /** True if an unlock message, rather than the timeout or an interrupt, ended the wait. */
    volatile boolean signalled;

    PendingWake(@Nullable String address) {
        this.address = address;
    }

    /** @return true if this call ended the wait, false if it had already ended */
    boolean wake() {
        return done.complete(null);
    }

    /** @return true if this unlock message ended the wait, false if it had already ended */
    boolean signal() {
        signalled = true;
        if (done.complete(null)) {
            return true;
        }
        signalled = false;
        return false;
    }

    void fail(RuntimeException failure) {
        done.completeExceptionally(failure);
    }
}
