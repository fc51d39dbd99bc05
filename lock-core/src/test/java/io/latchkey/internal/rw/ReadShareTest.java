package io.latchkey.internal.rw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LocalHandOff;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A client's shared read hold below Redis, every Redis answer given by the test and time moved by
 * hand, so that each race is played in the order chosen: readers admitted with no call, a writer
 * seen while admissions go on, the bound on admissions that Redis has not confirmed, the last
 * reader's release, a cancelled reader's level, and the loss of the shared hold.
 */
class ReadShareTest {

    private static final Object KEY = "doc-lock";
    private static final Object IDENTITY = "doc-read";
    /** Small bounds, so that each is reached in a few steps: 4 admissions, 20 ms. */
    private static final LocalHandOff BOUNDS = new LocalHandOff(4, Duration.ofMillis(20));
    private static final LeaseTerm WATCHDOG = LeaseTerm.watchdog(ScriptedShareRedis.LEASE);
    private static final long TOKEN = 1_000;
    /** What a try sent to Redis with the reader's own hold answers here, so the test can tell it apart. */
    private static final long OWN = 777;

    private final ManualTimer timer = ManualTimer.manual();
    private final ScriptedShareRedis redis = new ScriptedShareRedis(timer);
    private final ReadShares shares = new ReadShares(BOUNDS);
    private final HoldRegistry registry = new HoldRegistry(timer, timer.ticker());
    private final List<Long> ownTries = new ArrayList<>();

    private CompletableFuture<TryResult> read(long owner) {
        ReadShare.Routes routes = new ReadShare.Routes() {
            @Override
            public CompletableFuture<TryResult> again() {
                return read(owner);
            }

            @Override
            public CompletableFuture<TryResult> own() {
                ownTries.add(owner);
                return CompletableFuture.completedFuture(TryResult.busy(OWN));
            }
        };
        while (true) {
            CompletableFuture<TryResult> tried = shares.of(KEY, (self, block) -> redis).tryNew(owner, WATCHDOG, routes);
            if (tried != null) {
                return tried;
            }
        }
    }

    /** Records a grant as the acquire loop does. */
    private Hold record(long owner, TryResult result) {
        assertTrue(result.acquired(), "granted: " + result);
        Hold hold = registry.granted(IDENTITY, "doc", "read", owner, result.grant().fencingToken(),
                result.grant().confirmedUntilNanos(), true);
        result.grant().start(hold);
        return hold;
    }

    private Hold admitted(long owner) {
        return record(owner, read(owner).join());
    }

    private ReadShare share() {
        ReadShare share = shares.existing(KEY);
        assertTrue(share != null, "the share is there");
        return share;
    }

    private Hold firstReader(long owner) {
        CompletableFuture<TryResult> first = read(owner);
        redis.grant(TOKEN);
        return record(owner, first.join());
    }

    @Test
    void theFirstReaderTakesTheSharedHoldAndTheOthersGoInWithoutACall() {
        CompletableFuture<TryResult> first = read(1);
        CompletableFuture<TryResult> second = read(2);
        assertEquals(1, redis.tries.size(), "one try in Redis for both");
        assertFalse(second.isDone(), "the second waits for the first's answer, not in Redis");

        redis.grant(TOKEN);

        assertEquals(TOKEN, record(1, first.join()).token());
        assertEquals(TOKEN + 1, record(2, second.join()).token());
        assertEquals(TOKEN + 2, admitted(3).token(), "a later reader is admitted at once");
        assertTrue(redis.tries.isEmpty());
        assertTrue(ownTries.isEmpty());
    }

    @Test
    void aReaderThatReEntersNeedsNoCallAndKeepsItsTokenAlsoWhileAWriterWaits() {
        Hold hold = firstReader(1);
        share().writerWaits();

        TryResult again = share().reenter(1, hold.token());

        assertEquals(hold.token(), record(1, again).token());
        assertNull(share().reenter(1, hold.token() + 5), "another token is no hold of this owner here");
        assertTrue(redis.tries.isEmpty());
    }

    @Test
    void withoutAnAnswerFromRedisAtMostTheBoundOfReadersIsAdmittedAfterTheLastConfirmation() {
        firstReader(1);
        admitted(2);
        admitted(3);
        assertEquals(1, redis.reserves.size(), "a reserve is sent at half the bound");
        admitted(4);

        CompletableFuture<TryResult> fifth = read(5);
        assertFalse(fifth.isDone(), "the fifth since the grant waits for the reserve's answer");
        assertTrue(ownTries.isEmpty());

        redis.reserves.remove().complete(new ShareRedis.Reserved(true, false, TOKEN + 100));
        assertEquals(TOKEN + 100, record(5, fifth.join()).token(), "the answer lets readers in again, with its block");
        assertEquals(TOKEN + 101, admitted(6).token());
    }

    @Test
    void withoutAnAnswerFromRedisNobodyIsAdmittedOnceTheBoundsTimeHasPassed() {
        firstReader(1);
        timer.advance(Duration.ofMillis(10));
        admitted(2);
        assertEquals(1, redis.reserves.size(), "a reserve is sent at half the time");

        timer.advance(Duration.ofMillis(10));

        CompletableFuture<TryResult> third = read(3);
        assertFalse(third.isDone(), "it waits for the reserve's answer");
        redis.reserves.remove().completeExceptionally(new IllegalStateException("Redis did not answer"));
        assertTrue(third.join().sharedFailure() != null, "the reserve's failure is the try's: Redis did not answer it");
    }

    @Test
    void aWriterThatAReserveFindsStopsAdmissionsWhileTheReadersInStay() {
        firstReader(1);
        admitted(2);
        admitted(3);
        redis.reserves.remove().complete(new ShareRedis.Reserved(true, true, 0));

        assertEquals(OWN, read(4).join().waitMillis(), "behind the writer: Redis decides, and makes it wait");
        assertTrue(share().readsLocally(2), "the readers in stay in");
    }

    @Test
    void aWriterOfThisClientStopsAdmissionsAtOnceAndOnlyAReserveSentAfterItLetsReadersInAgain() {
        firstReader(1);
        admitted(2);
        admitted(3);
        CompletableFuture<ShareRedis.Reserved> sentBefore = redis.reserves.remove();

        timer.advance(Duration.ofMillis(1));
        share().writerWaits(); // the local writer's try was answered "wait" while the reserve was in flight
        sentBefore.complete(new ShareRedis.Reserved(true, false, TOKEN + 100));

        assertEquals(OWN, read(4).join().waitMillis(), "a reserve sent before the writer says nothing of it");
        timer.advance(Duration.ofMillis(10));
        assertEquals(OWN, read(5).join().waitMillis());
        assertEquals(1, redis.reserves.size(), "due again by time");
        redis.reserves.remove().complete(new ShareRedis.Reserved(true, false, TOKEN + 200));
        assertEquals(TOKEN + 200, admitted(6).token(), "the writer left (gave up): readers go in again");
    }

    @Test
    void theLastReadersReleaseReleasesTheSharedHoldAndANewReaderWaitsForItThenTakesANewOne() {
        firstReader(1);
        admitted(2);

        assertTrue(share().release(1).isDone());
        assertTrue(redis.releases.isEmpty(), "another reader still reads");
        CompletableFuture<Void> last = share().release(2);
        assertEquals(1, redis.releases.size());
        assertFalse(last.isDone(), "the last release is Redis's");

        CompletableFuture<TryResult> next = read(3);
        assertTrue(redis.tries.isEmpty(), "nobody is admitted on a hold being released");
        redis.releases.remove().complete(null);

        assertTrue(last.isDone());
        assertEquals(1, redis.tries.size(), "then a new shared hold");
        redis.grant(TOKEN + 50);
        assertEquals(TOKEN + 50, record(3, next.join()).token());
    }

    @Test
    void theTriesThatWaitedForTheSharedTryShareItsWaitAndTheShareLeavesOnceIdle() {
        CompletableFuture<TryResult> first = read(1);
        CompletableFuture<TryResult> second = read(2);

        redis.tries.remove().complete(TryResult.busy(250));

        assertEquals(250, first.join().waitMillis());
        assertEquals(250, second.join().waitMillis(), "a writer holds or waits: both wait for the message");
        assertEquals(0, shares.size(), "nothing kept for a lock nobody reads");
    }

    @Test
    void aGrantThatTheCancelledReaderCannotRecordGivesItsLevelBackAndTheSharedHoldGoes() {
        CompletableFuture<TryResult> first = read(1);
        redis.grant(TOKEN);
        TryResult granted = first.join();

        granted.grant().refuse(); // the owner's hold was given up meanwhile (a cancel, a timeout)

        assertEquals(1, redis.releases.size(), "its was the only level: the shared hold is released");
        redis.releases.remove().complete(null);
        assertEquals(0, shares.size());
    }

    @Test
    void aLossOfTheSharedHoldFoundByTheWatchdogReachesEveryLocalReader() {
        Hold one = firstReader(1);
        Hold two = admitted(2);

        redis.renewed.foundGone();

        assertTrue(one.isLost());
        assertTrue(two.isLost());
        assertEquals(0, shares.size(), "the share is free, and left");
        assertFalse(redis.renewing);
    }

    @Test
    void aLeaseAsConfirmedThatRunsOutLosesEveryReaderAndEndsTheSharedHoldInRedis() {
        Hold one = firstReader(1);
        Hold two = admitted(2);
        long until = timer.ticker().read() + ScriptedShareRedis.LEASE.toNanos();
        redis.renewed.renewed(timer.ticker().read(), until + Duration.ofSeconds(1).toNanos());

        timer.advance(ScriptedShareRedis.LEASE);
        assertFalse(one.isLost(), "the renewal confirmed both readers' holds a second longer");
        timer.advance(Duration.ofSeconds(1));

        assertTrue(one.isLost());
        assertTrue(two.isLost());
        assertEquals(List.of(TOKEN), redis.ended, "the shared hold may still be in Redis: ended there");
    }

    @Test
    void aReaderAdmittedAsTheSharedHoldIsLostIsLostWhenItsGrantIsRecorded() {
        firstReader(1);
        TryResult admittedBeforeTheLoss = read(2).join();

        redis.renewed.foundGone();
        Hold late = record(2, admittedBeforeTheLoss);

        assertTrue(late.isLost());
    }

    @Test
    void aReserveThatFindsTheSharedHoldGoneLosesEveryReader() {
        Hold one = firstReader(1);
        admitted(2);
        Hold three = admitted(3);

        redis.reserves.remove().complete(new ShareRedis.Reserved(false, false, 0));

        assertTrue(one.isLost());
        assertTrue(three.isLost());
        CompletableFuture<TryResult> next = read(4);
        assertEquals(1, redis.tries.size(), "the next reader takes a new shared hold");
        assertFalse(next.isDone());
    }

    @Test
    void aLostConnectionStopsAdmissionsUntilAReserveSentAfterItFindsTheHold() {
        firstReader(1);
        redis.connectionLost.run();

        assertEquals(OWN, read(2).join().waitMillis());
        timer.advance(Duration.ofMillis(10));
        read(3).join();
        redis.reserves.remove().complete(new ShareRedis.Reserved(true, false, TOKEN + 100));

        assertEquals(TOKEN + 100, admitted(4).token());
    }

    @Test
    void nobodyIsAdmittedWithinTheCommandTimeoutOfTheLeasesEnd() {
        firstReader(1);
        // Each reserve answered at once, so that only the lease stops admissions.
        timer.advance(ScriptedShareRedis.LEASE.minus(ScriptedShareRedis.COMMAND_TIMEOUT));
        assertEquals(OWN, read(2).join().waitMillis());
    }

    @Test
    void renewalsConfirmEveryLocalReadersLease() {
        Hold one = firstReader(1);
        Hold two = admitted(2);
        long now = timer.ticker().read();

        redis.renewed.renewed(now, now + Duration.ofSeconds(10).toNanos());

        assertEquals(Duration.ofSeconds(10).toNanos(), one.leaseLeftNanos(now));
        assertEquals(Duration.ofSeconds(10).toNanos(), two.leaseLeftNanos(now));
    }

    @Test
    void aLossThatStopsRenewingLeavesTheNextSharedHoldOfTheSameFieldRenewed() {
        firstReader(1);
        admitted(2);
        admitted(3);
        admitted(4);
        ReadShare lostShare = share();
        // Two readers wait for the reserve: the share stays after the loss, and the first of them
        // takes its next shared hold under the same field.
        CompletableFuture<TryResult> fifth = read(5);
        CompletableFuture<TryResult> sixth = read(6);
        // Just before the loss's thread stops renewing the lost hold, the reserve's answer lets the
        // waiting readers go again, and Redis grants the new shared hold.
        redis.beforeStopRenewing = () -> {
            redis.reserves.remove().complete(new ShareRedis.Reserved(true, false, TOKEN + 100));
            redis.grant(TOKEN + 500);
        };

        redis.renewed.foundGone();

        assertSame(lostShare, share(), "the same share, so the same field in Redis");
        assertEquals(Set.of(TOKEN + 500, TOKEN + 501), Set.of(record(5, fifth.join()).token(), record(6, sixth.join()).token()),
                "one took the new shared hold, the other was admitted on it");
        assertTrue(redis.renewing, "the new shared hold is still renewed by the watchdog");
    }
}
