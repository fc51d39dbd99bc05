package io.latchkey.internal.watchdog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.LeaseRegistration;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Script;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The watchdog below Redis: a manual clock and a scripted Redis that records each batch and
 * answers it when the test says, so that batching, the period, the retry after a failure and what
 * each hold is told are checked step by step.
 */
class LeaseRenewerTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration PERIOD = LEASE.dividedBy(3);
    private static final Renewal TWO_KEYS = new Renewal(Script.load(Renewal.class, "renew.lua"), 2);

    private final ManualTimer timer = ManualTimer.manual();
    private final ScriptedRedis redis = new ScriptedRedis();
    private final LeaseRenewer renewer = new LeaseRenewer(timer, timer.ticker(), LEASE, LockEvents.NONE, redis);
    private final RedisExecutor first = executor("first");
    private final RedisExecutor second = executor("second");

    @Test
    void holdsOfOneKindOnOneRedisGoInOneCallEachPeriodWithTheLeaseAndTheirFields() {
        renewer.renew(first, "a", "c:1", new Reports());
        renewer.renew(first, "b", "c:2", new Reports());

        timer.advance(PERIOD.minusMillis(1));
        assertEquals(0, redis.batches.size(), "nothing before the first period");
        timer.advance(Duration.ofMillis(1));

        assertEquals(1, redis.batches.size());
        Batch batch = redis.batches.get(0);
        // In the watchdog's map order, which the executor's identity hash decides: each key with its field.
        assertEquals(Set.of("a", "b"), Set.of(batch.keys));
        assertEquals("3000", batch.args[0]);
        for (int i = 0; i < batch.keys.length; i++) {
            assertEquals(batch.keys[i].equals("a") ? "c:1" : "c:2", batch.args[i + 1]);
        }
        assertTrue(batch.renewal == Renewal.LOCK_HASH);
    }

    @Test
    void eachRedisAndEachRenewalScriptGetsACallOfItsOwn() {
        renewer.renew(first, "a", "c:1", new Reports());
        renewer.renew(second, "a", "c:1", new Reports());
        renewer.renew(first, TWO_KEYS, List.of("r", "r:limit"), "c:1:read", new Reports());

        timer.advance(PERIOD);

        assertEquals(3, redis.batches.size());
        Batch twoKeys = redis.batches.stream().filter(batch -> batch.renewal == TWO_KEYS).findFirst().orElseThrow();
        assertEquals(List.of("r", "r:limit"), List.of(twoKeys.keys));
        assertEquals(List.of("3000", "c:1:read"), List.of(twoKeys.args));
    }

    @Test
    void aHoldWithTheWrongNumberOfKeysIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> renewer.renew(first, TWO_KEYS, List.of("r"), "c:1", new Reports()));
    }

    @Test
    void moreHoldsThanOneBatchTakesAreSplitIntoBatches() {
        int holds = RenewalRound.MAX_BATCH + 1;
        for (int i = 0; i < holds; i++) {
            renewer.renew(first, "lock" + i, "c:1", new Reports());
        }

        timer.advance(PERIOD);

        assertEquals(List.of(RenewalRound.MAX_BATCH, 1), redis.batches.stream().map(batch -> batch.keys.length).toList());
    }

    @Test
    void aRenewalConfirmsTheLeaseFromItsSendTimeAndTheNextRoundWaitsForTheAnswer() {
        Reports reports = new Reports();
        renewer.renew(first, "a", "c:1", reports);
        timer.advance(PERIOD);
        long sentAt = timer.ticker().read();

        timer.advance(PERIOD.multipliedBy(2));
        assertEquals(1, redis.batches.size(), "no second round while the first is unanswered");
        redis.batches.get(0).answer(1L);

        assertEquals(List.of(sentAt + LEASE.toNanos()), reports.confirmedUntil);
        assertEquals(List.of(sentAt), reports.sentAt);
        timer.advance(PERIOD);
        assertEquals(2, redis.batches.size(), "the next round a period after the answer");
    }

    @Test
    void aHoldFoundGoneIsToldOnceAndNoLongerRenewed() {
        Reports gone = new Reports();
        Reports kept = new Reports();
        renewer.renew(first, "a", "c:1", gone);
        renewer.renew(first, "b", "c:2", kept);
        timer.advance(PERIOD);

        Batch batch = redis.batches.get(0);
        batch.answer(batch.keys[0].equals("a") ? 0L : 1L, batch.keys[0].equals("a") ? 1L : 0L);

        assertEquals(1, gone.foundGone);
        assertEquals(0, kept.foundGone);
        assertEquals(1, kept.confirmedUntil.size());
        timer.advance(PERIOD);
        assertEquals(List.of("b"), List.of(redis.batches.get(1).keys));
    }

    @Test
    void aFailedRoundTellsEveryHoldAndIsRetriedWithinAQuarterPeriod() {
        Reports reports = new Reports();
        renewer.renew(first, "a", "c:1", reports);
        timer.advance(PERIOD);

        redis.batches.get(0).fail();

        assertEquals(1, reports.failed);
        assertEquals(0, reports.foundGone);
        timer.advance(PERIOD.dividedBy(4));
        assertEquals(2, redis.batches.size());
    }

    @Test
    void anAnswerForAHoldThatLeftMeanwhileTellsItNothing() {
        Reports reports = new Reports();
        renewer.renew(first, "a", "c:1", reports);
        timer.advance(PERIOD);

        renewer.cancel(first, "a", "c:1");
        redis.batches.get(0).answer(0L);

        assertEquals(0, reports.foundGone);
        assertTrue(reports.confirmedUntil.isEmpty());
        timer.advance(PERIOD.multipliedBy(3));
        assertEquals(1, redis.batches.size(), "nothing left to renew");
    }

    @Test
    void aRenewalLastsUntilItsRegistrationIsCancelledAndCancelsOnlyItself() {
        Reports mine = new Reports();
        LeaseRegistration registration = renewer.renew(first, "a", "c:1", mine);
        assertTrue(registration.isActive());
        assertSame(registration, renewer.renew(first, "a", "c:1", mine), "renewed for the same lease: the same renewal");

        LeaseRegistration later = renewer.renew(first, "a", "c:1", new Reports());
        assertFalse(registration.isActive(), "a later lease of the same field takes the renewal over");
        assertTrue(later.isActive());
        registration.cancel();
        assertTrue(later.isActive(), "an earlier registration's cancel stops nothing of the later one");

        later.cancel();
        assertFalse(later.isActive());
        timer.advance(PERIOD);
        assertEquals(0, redis.batches.size());
    }

    @Test
    void anAnswerForAnEarlierLeaseOfTheFieldNeverReachesTheLaterOne() {
        Reports earlier = new Reports();
        Reports later = new Reports();
        renewer.renew(first, "a", "c:1", earlier);
        timer.advance(PERIOD);

        renewer.renew(first, "a", "c:1", later);
        redis.batches.get(0).answer(0L);

        assertEquals(0, earlier.foundGone, "no longer renewed for it");
        assertEquals(0, later.foundGone, "the answer was about the earlier hold");
        timer.advance(PERIOD);
        assertEquals(2, redis.batches.size(), "the later hold is still renewed");
        redis.batches.get(1).answer(1L);
        assertEquals(1, later.confirmedUntil.size());
        assertTrue(earlier.confirmedUntil.isEmpty());
    }

    @Test
    void cancellingByLeaseStopsOnlyThatLeasesRenewal() {
        Reports earlier = new Reports();
        Reports later = new Reports();
        renewer.renew(first, "a", "c:1", earlier);
        LeaseRegistration renewed = renewer.renew(first, "a", "c:1", later);

        renewer.cancel(first, "a", "c:1", earlier);
        assertTrue(renewed.isActive());
        renewer.cancel(first, "a", "c:1", later);
        assertFalse(renewed.isActive());
    }

    @Test
    void renewNowRenewsEverythingAtOnceBesideThePeriodicRounds() {
        Reports reports = new Reports();
        renewer.renew(first, "a", "c:1", reports);

        renewer.renewNow();
        timer.advance(0, TimeUnit.NANOSECONDS);

        assertEquals(1, redis.batches.size());
        redis.batches.get(0).answer(1L);
        timer.advance(PERIOD);
        assertEquals(2, redis.batches.size(), "the periodic round is as it was");
    }

    @Test
    void closeStopsEveryRenewalAndTakesNoNewHolds() {
        renewer.renew(first, "a", "c:1", new Reports());
        renewer.close();
        renewer.renew(first, "b", "c:1", new Reports());
        assertFalse(renewer.renew(first, "c", "c:1", new Reports()).isActive());

        timer.advance(PERIOD.multipliedBy(3));
        renewer.renewNow();
        timer.advance(0, TimeUnit.NANOSECONDS);

        assertEquals(0, redis.batches.size());
    }

    private static RedisExecutor executor(String name) {
        return new RedisExecutor(null, Duration.ofSeconds(1), name); // never called: the scripted Redis answers
    }

    /** Records each batch; the test answers it. */
    private static final class ScriptedRedis implements RenewalRound.RenewalCall {
        final List<Batch> batches = Collections.synchronizedList(new ArrayList<>());

        @Override
        public CompletableFuture<List<Object>> send(RedisExecutor executor, Renewal renewal, String[] keys, String[] args) {
            Batch batch = new Batch(renewal, keys, args);
            batches.add(batch);
            return batch.answer;
        }
    }

    private static final class Batch {
        final Renewal renewal;
        final String[] keys;
        final String[] args;
        final CompletableFuture<List<Object>> answer = new CompletableFuture<>();

        Batch(Renewal renewal, String[] keys, String[] args) {
            this.renewal = renewal;
            this.keys = keys.clone();
            this.args = args.clone();
        }

        void answer(Long... perHold) {
            answer.complete(List.of((Object[]) perHold));
        }

        void fail() {
            answer.completeExceptionally(new IllegalStateException("Redis did not answer"));
        }
    }

    private static final class Reports implements RenewedLease {
        final List<Long> sentAt = new ArrayList<>();
        final List<Long> confirmedUntil = new ArrayList<>();
        int foundGone;
        int failed;

        @Override
        public void renewed(long sentAtNanos, long untilNanos) {
            sentAt.add(sentAtNanos);
            confirmedUntil.add(untilNanos);
        }

        @Override
        public void foundGone() {
            foundGone++;
        }

        @Override
        public void renewalFailed() {
            failed++;
        }
    }
}
