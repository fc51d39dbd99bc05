package io.latchkey.redlock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.spi.Ticker;
import io.latchkey.spi.Wakeups;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RedLockWakeups without Redis. An interrupt that finds no wait parked is not lost: the acquire
 * loop checks whether its attempt is over, then parks the next wait; a cancel or an interrupt
 * that lands between the two would otherwise be heard by nobody, and the wait would run its
 * whole bound (forever, for {@code lock()} against a key without expiry). And since a master's
 * wake-ups may keep such an interrupt too, a round ends its own master waits, not by the masters'
 * interrupts, and a master wait that an old interrupt ends does not end the round. A round that
 * its caller ends leaves no master wait parked, to take a message meant for the next round.
 */
class RedLockWakeupsTest {

    /** Far longer than any test here may take, so that a wait that runs it out fails the test. */
    private static final long LONG_WAIT_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    private static final long JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Timer timer = new HashedWheelTimer();
    private final RedLockWakeups wakeups = new RedLockWakeups(List.of(), timer, Ticker.system(), TimeUnit.MILLISECONDS.toNanos(1));

    @AfterEach
    void stopTimer() {
        wakeups.close();
        timer.stop();
    }

    @Test
    void anInterruptBeforeTheFirstWaitEndsThatWaitAtOnce() throws Exception {
        wakeups.interrupt();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void anInterruptBetweenTwoWaitsEndsTheNextWaitAtOnce() throws Exception {
        CompletableFuture<Void> first = wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS);
        wakeups.interrupt();
        assertEndsPromptly(first);

        // The attempt checked that it is not over, then was cancelled before parking again.
        wakeups.interrupt();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void anInterruptAfterAWaitRanOutEndsTheNextWaitAtOnce() throws Exception {
        assertEndsPromptly(wakeups.await(wakeups.sequence(), TimeUnit.MILLISECONDS.toNanos(20)));

        wakeups.interrupt();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void anInterruptEndsOneWaitOnly() throws Exception {
        wakeups.interrupt();
        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));

        CompletableFuture<Void> next = wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS);

        assertFalse(next.isDone(), "an interrupt that was heard once ended a later wait too");
        wakeups.interrupt();
        assertEndsPromptly(next);
    }

    @Test
    void aWaitAfterCloseEndsAtOnce() throws Exception {
        wakeups.close();

        assertEndsPromptly(wakeups.await(wakeups.sequence(), LONG_WAIT_NANOS));
    }

    @Test
    void aRoundThatOneMastersMessageEndedLeavesNoInterruptBehindForTheNextRound() throws Exception {
        KeptInterruptWakeups first = new KeptInterruptWakeups();
        KeptInterruptWakeups second = new KeptInterruptWakeups();
        RedLockWakeups overTwo = new RedLockWakeups(List.of(first, second), timer, Ticker.system(), TimeUnit.MILLISECONDS.toNanos(1));

        CompletableFuture<Void> woken = overTwo.await(overTwo.sequence(), LONG_WAIT_NANOS);
        first.signal();
        assertEndsPromptly(woken);

        CompletableFuture<Void> next = overTwo.await(overTwo.sequence(), LONG_WAIT_NANOS);
        assertFalse(next.isDone(), "the end of the last round interrupted a master wait that had already ended");
        overTwo.close();
        assertEndsPromptly(next);
    }

    @Test
    void anInterruptThatAMasterKeptFromBeforeDoesNotEndTheRound() throws Exception {
        KeptInterruptWakeups master = new KeptInterruptWakeups();
        RedLockWakeups overOne = new RedLockWakeups(List.of(master), timer, Ticker.system(), TimeUnit.MILLISECONDS.toNanos(1));
        master.interrupt();

        CompletableFuture<Void> wait = overOne.await(overOne.sequence(), LONG_WAIT_NANOS);

        assertFalse(wait.isDone(), "an interrupt meant for an earlier wait of the master ended the round");
        master.signal();
        assertEndsPromptly(wait); // the master's wait was parked again: its messages still count
        overOne.close();
    }

    @Test
    void aRoundThatItsCallerEndedLeavesNoMasterWaitToTakeTheNextRoundsMessage() {
        // A RedLock attempt with local hand-off waits through the cohort's wake-ups, which end the
        // round by completing it when the cohort passes the hold on, and then wait again if the
        // hold went to another owner. Two clients hot on one RedLock: the other's release with a
        // turn for this client published its unlock on every master, and each message went to a
        // master wait of such an ended round, parked before the live one; nobody tried.
        ManualClock clock = new ManualClock();
        ChannelMaster master = new ChannelMaster();
        RedLockWakeups overOne = new RedLockWakeups(List.of(master), clock, clock, JITTER_NANOS);

        CompletableFuture<Void> passedOnLocally = overOne.await(overOne.sequence(), LONG_WAIT_NANOS);
        passedOnLocally.complete(null);
        CompletableFuture<Void> next = overOne.await(overOne.sequence(), LONG_WAIT_NANOS);
        master.message();
        clock.advanceTo(JITTER_NANOS);

        assertTrue(next.isDone(), "an unlock message went to the master wait of a round that had ended");
        assertEquals(0, master.parked());
    }

    @Test
    void aRoundThatItsCallerEndedAndWaitedAgainInItsCompletionEndsItsOwnMasterWaitOnly() {
        // The caller's completion runs before the round's own: the next round's master wait is
        // then the master's latest, the one that the master's interrupt would end.
        ManualClock clock = new ManualClock();
        ChannelMaster master = new ChannelMaster();
        RedLockWakeups overOne = new RedLockWakeups(List.of(master), clock, clock, JITTER_NANOS);
        List<CompletableFuture<Void>> next = new ArrayList<>();

        CompletableFuture<Void> passedOnLocally = overOne.await(overOne.sequence(), LONG_WAIT_NANOS);
        passedOnLocally.whenComplete((ok, failure) -> next.add(overOne.await(overOne.sequence(), LONG_WAIT_NANOS)));
        passedOnLocally.complete(null);
        assertEquals(1, master.parked(), "the ended round's master wait is still parked, or the next round's was ended");
        master.message();
        clock.advanceTo(JITTER_NANOS);

        assertTrue(next.get(0).isDone(), "an unlock message went to the master wait of a round that had ended");
    }

    private static void assertEndsPromptly(CompletableFuture<Void> wait) throws Exception {
        wait.get(PROMPTLY.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(wait.isDone());
    }

    /**
     * A master's unlock channel as the client's subscriptions hold it (ChannelWaiters and
     * ChannelWakeups): an unlock message wakes the oldest wait still parked, whichever round it
     * is of, an interrupt ends the latest wait, and a wait leaves once its future completes.
     * Waits never time out by themselves.
     */
    private static final class ChannelMaster implements Wakeups {
        private final AtomicLong sequence = new AtomicLong();
        private final Queue<CompletableFuture<Void>> parked = new ConcurrentLinkedQueue<>();
        private volatile CompletableFuture<Void> latest;

        @Override
        public long sequence() {
            return sequence.get();
        }

        @Override
        public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
            CompletableFuture<Void> wait = new CompletableFuture<>();
            latest = wait;
            parked.add(wait);
            wait.whenComplete((ok, failure) -> parked.remove(wait));
            if (sequence.get() != seenSequence) {
                wait.complete(null);
            }
            return wait;
        }

        void message() {
            sequence.incrementAndGet();
            for (CompletableFuture<Void> wait : parked) {
                if (wait.complete(null)) {
                    return;
                }
            }
        }

        int parked() {
            return parked.size();
        }

        @Override
        public void interrupt() {
            CompletableFuture<Void> wait = latest;
            if (wait != null) {
                wait.complete(null);
            }
        }

        @Override
        public void handOn() {
        }

        @Override
        public void close() {
        }
    }

    /**
     * A master's wake-ups that keep an interrupt which finds no wait parked, as RedLockWakeups
     * itself does. Their waits never time out by themselves: the round's timeout is the one that
     * matters here.
     */
    private static final class KeptInterruptWakeups implements Wakeups {
        private final AtomicLong sequence = new AtomicLong();
        private CompletableFuture<Void> parked;
        private boolean interruptKept;

        @Override
        public long sequence() {
            return sequence.get();
        }

        @Override
        public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
            CompletableFuture<Void> wait = new CompletableFuture<>();
            boolean endNow;
            synchronized (this) {
                parked = wait;
                endNow = interruptKept || sequence.get() != seenSequence;
                interruptKept = false;
            }
            if (endNow) {
                wait.complete(null);
            }
            return wait;
        }

        void signal() {
            sequence.incrementAndGet();
            CompletableFuture<Void> wait;
            synchronized (this) {
                wait = parked;
            }
            if (wait != null) {
                wait.complete(null);
            }
        }

        @Override
        public void interrupt() {
            CompletableFuture<Void> wait;
            synchronized (this) {
                wait = parked;
                if (wait == null || wait.isDone()) {
                    interruptKept = true;
                    return;
                }
            }
            wait.complete(null);
        }

        @Override
        public void handOn() {
        }

        @Override
        public void close() {
        }
    }
}
