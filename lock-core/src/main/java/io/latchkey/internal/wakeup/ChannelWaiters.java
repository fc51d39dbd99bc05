package io.latchkey.internal.wakeup;

import io.netty.util.Timeout;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/** The local waiters of one unlock channel, oldest first. */
final class ChannelWaiters {

    final String channel;
    /** Guarded by the owning {@link UnlockSubscriptions}. */
    int references;
    /** Guarded by the owning {@link UnlockSubscriptions}. */
    @Nullable CompletableFuture<Void> subscribed;
    /** Guarded by the owning {@link UnlockSubscriptions}: the end of the linger after the last waiter left, or null. */
    @Nullable Timeout linger;

    /** Guarded by the owning {@link UnlockSubscriptions}: the subscription was confirmed. */
    boolean subscribedHere() {
        CompletableFuture<Void> confirmation = subscribed;
        return confirmation != null && confirmation.isDone() && !confirmation.isCompletedExceptionally();
    }

    /**
     * Guarded by the owning {@link UnlockSubscriptions}: a waiter joins a channel that lingers.
     *
     * @return true if it lingered: its subscription stands
     */
    boolean stopLingering() {
        if (linger == null) {
            return false;
        }
        linger.cancel();
        linger = null;
        return true;
    }

    /** Counts the messages that concern every waiter here: unaddressed ones, and re-subscriptions. */
    private final AtomicLong sequence = new AtomicLong();
    /**
     * Set once a waiter joined under {@link UnlockSubscriptions#EVERY_WAITER}: only then does
     * that message mean something here, also to such a waiter busy trying.
     */
    private volatile boolean everyWaiterMessages;
    private final ConcurrentLinkedQueue<PendingWake> pending = new ConcurrentLinkedQueue<>();
    /** The attempts here that joined under an address, oldest first, parked or busy trying. */
    private final ConcurrentLinkedQueue<ChannelWakeups> addressed = new ConcurrentLinkedQueue<>();
    /** Set once by {@link #failAll}; from then on every wait fails as it is parked. */
    private volatile @Nullable RuntimeException failure;

    ChannelWaiters(String channel) {
        this.channel = channel;
    }

    long sequence() {
        return sequence.get();
    }

    /**
     * Parks a waiter; wakes it at once if a signal for it came since {@code seenSequence}, because
     * that signal found it busy trying and woke nobody on its behalf; fails it at once if the
     * waiters were failed, because nothing would ever end it.
     *
     * @param current the waiter's sequence now ({@link ChannelWakeups#sequence})
     */
    void park(PendingWake wake, long seenSequence, LongSupplier current) {
        pending.add(wake);
        // Read after the add: a concurrent failAll either sees this wait or set the failure first,
        // and a concurrent signal either counted before this read or finds this wait parked.
        RuntimeException failed = failure;
        if (failed != null) {
            wake.fail(failed);
        } else if (current.getAsLong() != seenSequence) {
            wake.wake();
        }
        if (wake.done.isDone()) {
            // It ended (timeout, interrupt) before it was added here, so its unpark found nothing
            // to remove and ran already: remove it now, or it stays for the channel's life.
            pending.remove(wake);
        }
    }

    /** Removes an ended wait; safe to call before {@link #park}, which then removes it itself. */
    void unpark(PendingWake wake) {
        pending.remove(wake);
    }

    /** An attempt joined under an address: a word for that address may be for it. */
    void joined(ChannelWakeups wakeups) {
        addressed.add(wakeups);
    }

    /** An attempt that joined under an address left. */
    void left(ChannelWakeups wakeups) {
        addressed.remove(wakeups);
    }

    /**
     * An empty message wakes the oldest waiter that is still waiting; a message naming a waiter
     * wakes that one only, if it waits here; {@link UnlockSubscriptions#EVERY_WAITER} wakes every
     * waiter here that joined under that address, each as by a message of its own. A message
     * naming a waiter may carry a word after a space (the fair lock's grant: the token): it goes
     * to one attempt only, the oldest that joined under that address, whether it is parked or
     * busy trying, so that the word is used at most once here.
     */
    void signal(String message) {
        if (UnlockSubscriptions.EVERY_WAITER.equals(message)) {
            // Elsewhere it is forged: counted, it would send every waiter busy trying into one try more.
            if (everyWaiterMessages) {
                sequence.incrementAndGet();
                parkedNow().stream().filter(wake -> message.equals(wake.address)).forEach(PendingWake::signal);
            }
            return;
        }
        if (message == null || message.isEmpty()) {
            sequence.incrementAndGet();
            signalOldest(null);
            return;
        }
        // Counted only for the attempts it names (before any is woken or given the word, so that
        // one busy trying sees it): a message naming another waiter (the fair lock's) tells such
        // an attempt nothing, and counted for all it sent each into a try more, about one and a
        // half per fair hand-off among 8.
        int space = message.indexOf(' ');
        String address = space >= 0 ? message.substring(0, space) : message;
        ChannelWakeups oldest = null;
        for (ChannelWakeups joined : addressed) {
            if (address.equals(joined.address())) {
                joined.named();
                oldest = oldest == null ? joined : oldest;
            }
        }
        if (space < 0) {
            signalOldest(message);
        } else if (oldest != null) {
            oldest.deliver(message.substring(space + 1));
        }
    }

    /** Wakes the oldest parked waiter that can take a signal, of {@code address} if one is given. */
    private void signalOldest(@Nullable String address) {
        for (PendingWake wake : pending) {
            if ((address == null || address.equals(wake.address)) && wake.signal()) {
                return;
            }
        }
    }

    /** A waiter joined under {@link UnlockSubscriptions#EVERY_WAITER}: that message wakes such waiters here. */
    void acceptEveryWaiterMessages() {
        everyWaiterMessages = true;
    }

    void signalAll() {
        sequence.incrementAndGet();
        parkedNow().forEach(PendingWake::wake);
    }

    /**
     * The waits parked now, to wake each once: a woken waiter may try again and park again on
     * this thread (a try that the client answers itself, as local hand-off does), and the queue's
     * iterator would reach that new wait, wake it, and so on, round after round on the thread
     * that delivers the messages.
     */
    private List<PendingWake> parkedNow() {
        return List.copyOf(pending);
    }

    /**
     * Fails every parked wait, and every wait parked later: the client is closing, so no message
     * will come, and its timer is about to stop, dropping the timeouts that bound the waits.
     */
    void failAll(RuntimeException failure) {
        this.failure = failure;
        pending.forEach(wake -> wake.fail(failure));
    }

    /** @return how many waits are parked here now; for tests and diagnostics */
    int parked() {
        return pending.size();
    }
}
