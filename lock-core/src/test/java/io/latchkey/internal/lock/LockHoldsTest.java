package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LeaseLostException;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.TryResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The client's record of a lock's holds, below Redis. */
class LockHoldsTest {

    private static final long OWNER = 7;

    @Test
    void aGrantThatReentersAHoldGivenUpForLostIsRefusedNotStarted() {
        ScriptedProtocol protocol = new ScriptedProtocol(owner -> new CompletableFuture<>(), owner -> null, new ManualTicker());
        LockHolds holds = new LockHolds(protocol);
        Hold first = holds.admit(OWNER, true, new RecordingGrant(11));
        first.lose("lost while the owner's next try was in flight", false);

        RecordingGrant late = new RecordingGrant(11); // a re-entry of the hold, granted before the loss
        Hold admitted = holds.admit(OWNER, true, late);

        assertTrue(admitted.isLost(), "the owner learns of the loss");
        // Before: the grant was neither started nor given back, and a local grant left the
        // cohort held for an owner that did not know it held, renewed for ever.
        assertEquals(List.of("refuse"), late.calls);
    }

    @Test
    void aReleaseStopsTheHoldsRenewalBeforeItIsSentToRedis() {
        ScriptedProtocol protocol = new ScriptedProtocol(owner -> new CompletableFuture<>(), owner -> null, new ManualTicker());
        LockHolds holds = new LockHolds(protocol);
        List<Integer> releasesSentAtCancel = new ArrayList<>();
        holds.admit(OWNER, true, new RecordingGrant(11) {
            @Override
            public void start(Hold started) {
                started.renewWith(() -> new LeaseRegistration() {
                    private boolean active = true;

                    @Override
                    public boolean isActive() {
                        return active;
                    }

                    @Override
                    public void cancel() {
                        active = false;
                        releasesSentAtCancel.add(protocol.releases(OWNER));
                    }
                });
            }
        });

        holds.release(OWNER).join();

        assertEquals(List.of(0), releasesSentAtCancel, "so that a release whose answer is lost never leaves the hold renewed");
    }

    @Test
    void aReleaseThatMeetsALossStillBeingReportedFailsWithLeaseLost() {
        ScriptedProtocol protocol = new ScriptedProtocol(owner -> new CompletableFuture<>(), owner -> null, new ManualTicker());
        protocol.releasesFindNothing();
        LockHolds holds = new LockHolds(protocol);
        List<CompletableFuture<Void>> duringReport = new ArrayList<>();
        Hold hold = holds.admit(OWNER, true, new RecordingGrant(11) {
            @Override
            public void start(Hold started) {
                // The owner's unlock and close arrive while the watchdog's thread reports the loss.
                started.onLoss((lost, mayRemainInRedis) -> {
                    duringReport.add(holds.release(OWNER));
                    duringReport.add(holds.close(lost));
                });
            }
        });

        hold.lose("its lease ran out before it was released or renewed", true);

        // Before: the release failed with a bare IllegalMonitorStateException ("not held") and the
        // close with "already released", so a worker paused past its lease died of the exception
        // that callers are told to expect only for locks they never held (fault harness, CI).
        for (CompletableFuture<Void> call : duringReport) {
            CompletionException failure = assertThrows(CompletionException.class, call::join);
            assertInstanceOf(LeaseLostException.class, failure.getCause());
        }
    }

    @Test
    void aReentryGrantedWhileTheLossIsBeingReportedIsRefusedNotJoined() {
        ScriptedProtocol protocol = new ScriptedProtocol(owner -> new CompletableFuture<>(), owner -> null, new ManualTicker());
        LockHolds holds = new LockHolds(protocol);
        RecordingGrant late = new RecordingGrant(11);
        List<Hold> admitted = new ArrayList<>();
        holds.admit(OWNER, true, new RecordingGrant(11) {
            @Override
            public void start(Hold started) {
                // The re-entry's answer arrives on the I/O thread while the timer's thread reports the loss.
                started.onLoss((lost, mayRemainInRedis) -> admitted.add(holds.admit(OWNER, true, late)));
            }
        }).lose("its lease ran out before it was released or renewed", true);

        // Before: the grant joined the lost hold (a level more) and was started again, so the
        // owner was told it re-entered a hold whose end was already on its way to Redis.
        assertEquals(List.of("refuse"), late.calls);
        assertTrue(admitted.get(0).isLost(), "the owner learns of the loss");
    }

    /** A grant that records what the acquire loop does with it. */
    private static class RecordingGrant implements TryResult.Grant {
        private final long token;
        final List<String> calls = new ArrayList<>();

        RecordingGrant(long token) {
            this.token = token;
        }

        @Override
        public long fencingToken() {
            return token;
        }

        @Override
        public long confirmedUntilNanos() {
            return Long.MAX_VALUE;
        }

        @Override
        public void start(Hold hold) {
            calls.add("start");
        }

        @Override
        public void refuse() {
            calls.add("refuse");
        }
    }
}
