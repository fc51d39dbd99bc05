package io.latchkey.internal.watchdog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A {@link Hold} and the watchdog together, below Redis: the hold keeps the one count of its
 * levels and starts and stops its own renewal by it, as the acquire loop drives it (a grant
 * entered, then its renewal offered; {@code releasing} before Redis answers, {@code leave} after).
 */
class HoldRenewalTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration PERIOD = LEASE.dividedBy(3);
    private static final String LOCK = "a";
    private static final String FIELD = "c:1";
    private static final long OWNER = 1;
    private static final long TOKEN = 5;

    private final ManualTimer timer = ManualTimer.manual();
    private final List<CompletableFuture<List<Object>>> batches = Collections.synchronizedList(new ArrayList<>());
    private final LeaseRenewer renewer = new LeaseRenewer(timer, timer.ticker(), LEASE, LockEvents.NONE,
            (executor, renewal, keys, args) -> {
                CompletableFuture<List<Object>> answer = new CompletableFuture<>();
                batches.add(answer);
                return answer;
            });
    private final RedisExecutor redis = new RedisExecutor(null, Duration.ofSeconds(1), "first");
    private final HoldRegistry registry = new HoldRegistry(timer, timer.ticker());

    /** A grant of one level, as the acquire loop records it and a lock hash's grant starts it. */
    private Hold grant(boolean watchdog) {
        Hold hold = registry.granted(LOCK, LOCK, "plain", OWNER, TOKEN, timer.ticker().read() + Duration.ofMinutes(10).toNanos(),
                watchdog);
        hold.renewWith(() -> renewer.renew(redis, LOCK, FIELD, hold));
        return hold;
    }

    /** A release of one level, answered at once. */
    private static void release(Hold hold) {
        hold.releasing();
        hold.leave();
    }

    private int roundsAfterAPeriod() {
        timer.advance(PERIOD);
        batches.forEach(batch -> batch.complete(List.of(1L)));
        return batches.size();
    }

    @Test
    void aFixedLeaseUnderNoWatchdogLevelIsNeverRenewed() {
        Hold hold = grant(false);
        grant(false);

        assertFalse(hold.renewed());
        assertEquals(0, roundsAfterAPeriod());
    }

    @Test
    void aFixedReEntryNeitherStartsNorStopsRenewal() {
        Hold hold = grant(true);
        assertSame(hold, grant(false));
        assertEquals(1, roundsAfterAPeriod());

        release(hold); // the fixed re-entry
        assertTrue(hold.renewed());
        assertEquals(2, roundsAfterAPeriod(), "renewed while the watchdog level stands");

        release(hold); // the watchdog level
        assertFalse(hold.isHeld());
        assertEquals(2, roundsAfterAPeriod(), "nothing renewed after the last level");
    }

    @Test
    void aWatchdogReEntryOfAFixedHoldIsRenewedUntilItsOwnReleaseNotTheFixedLevelUnderneath() {
        Hold hold = grant(false);
        grant(true);
        assertEquals(1, roundsAfterAPeriod(), "the watchdog level starts renewal");

        release(hold); // the watchdog level, innermost
        assertTrue(hold.isHeld(), "the fixed level stays held");
        assertFalse(hold.renewed());
        assertEquals(1, roundsAfterAPeriod(), "the fixed level underneath is not renewed");
    }

    @Test
    void theLastWatchdogLevelStopsRenewalAsItsReleaseIsAskedForBeforeRedisAnswers() {
        Hold hold = grant(true);
        timer.advance(PERIOD);
        assertEquals(1, batches.size());

        hold.releasing(); // Redis has not answered the release yet, and may never
        batches.get(0).complete(List.of(1L));
        timer.advance(PERIOD.multipliedBy(3));

        assertEquals(1, batches.size(), "no renewal once the release was asked for");
        assertTrue(hold.isHeld(), "held until the release is answered");
        assertTrue(hold.leave());
        assertFalse(hold.isHeld());
    }

    @Test
    void twoReleasesInFlightEndTheHoldOnlyWithTheSecondAnswer() {
        Hold hold = grant(true);
        grant(true);

        hold.releasing();
        hold.releasing();
        assertFalse(hold.renewed());
        assertFalse(hold.leave(), "one release is still unanswered");
        assertTrue(hold.isHeld());
        assertTrue(hold.leave());
    }

    @Test
    void anAnswerForTheHoldsEarlierRenewalNeverReachesItsLaterOne() {
        Hold hold = grant(false);
        grant(true);
        timer.advance(PERIOD); // a renewal is on its way
        assertEquals(1, batches.size());

        release(hold); // the watchdog level: that renewal stops
        grant(true); // renewal starts again
        batches.get(0).complete(List.of(0L)); // the earlier renewal's answer: found gone

        assertTrue(hold.isHeld(), "the answer was about a renewal that had stopped");
        timer.advance(PERIOD);
        assertEquals(2, batches.size(), "the later renewal goes on");
    }

    @Test
    void aLostHoldStopsItsRenewalAndAFoundGoneOneIsLost() {
        Hold lost = grant(true);
        lost.lose("taken as run out", true);
        assertEquals(0, roundsAfterAPeriod(), "a lost hold is no longer renewed");
        lost.end();

        Hold gone = grant(true);
        timer.advance(PERIOD);
        batches.get(0).complete(List.of(0L));
        assertTrue(gone.isLost());
        assertEquals("a renewal found it gone from Redis", gone.lossReason());
    }
}
