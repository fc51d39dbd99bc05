package io.latchkey.internal.wakeup;

import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** One acquire attempt's view of a channel's unlock messages. */
final class ChannelWakeups implements Wakeups {

    private final ChannelWaiters waiters;
    private final @Nullable String address;
    private final Timer timer;
    private final Consumer<ChannelWaiters> onClose;
    private volatile @Nullable PendingWake current;
    /** The word of the last message that named this attempt with one, until taken. */
    private final AtomicReference<@Nullable String> word = new AtomicReference<>();
    /** Counts the messages that named this attempt's address; with the channel's, its {@link #sequence}. */
    private final AtomicLong named = new AtomicLong();
    private boolean closed;

    ChannelWakeups(ChannelWaiters waiters, @Nullable String address, Timer timer, Consumer<ChannelWaiters> onClose) {
        this.waiters = waiters;
        this.address = address;
        this.timer = timer;
        this.onClose = onClose;
        if (UnlockSubscriptions.EVERY_WAITER.equals(address)) {
            waiters.acceptEveryWaiterMessages();
        } else if (address != null) {
            waiters.joined(this);
        }
    }

    @Nullable String address() {
        return address;
    }

    /** A message named this attempt's address: it counts for this attempt, also while it is busy trying. */
    void named() {
        named.incrementAndGet();
    }

    /** A message named this attempt with a word: kept for {@link #takeWord}, and the wait (if parked) ends. */
    void deliver(String delivered) {
        word.set(delivered);
        PendingWake wake = current;
        if (wake != null) {
            wake.signal();
        }
    }

    @Override
    public @Nullable String takeWord() {
        return word.getAndSet(null);
    }

    @Override
    public long sequence() {
        // Both only grow, so the sum changes whenever either does.
        return waiters.sequence() + named.get();
    }

    @Override
    public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
        PendingWake wake = new PendingWake(address);
        current = wake;
        wake.done.whenComplete((ok, failure) -> {
            waiters.unpark(wake);
            Timeout timeout = wake.timeout;
            if (timeout != null) {
                timeout.cancel();
            }
        });
        try {
            wake.timeout = timer.newTimeout(t -> wake.wake(), timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            // Only close() stops the timer; a wait without its bound might never end.
            wake.fail(LockExceptions.clientClosed());
            return wake.done;
        }
        waiters.park(wake, seenSequence, this::sequence);
        return wake.done;
    }

    @Override
    public void interrupt() {
        PendingWake wake = current;
        if (wake != null) {
            wake.wake();
        }
    }

    @Override
    public void handOn() {
        PendingWake wake = current;
        if (wake != null && wake.signalled) {
            waiters.signal("");
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            interrupt();
            waiters.left(this);
            onClose.accept(waiters);
        }
    }
}
