package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.OneRedis;
import io.latchkey.TimingBound;
import io.latchkey.testing.FaultProxy;
import io.latchkey.topology.CapturedLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The watchdog reports a lost lease exactly when a hold is known gone, and for that hold only:
 * in the log, through {@code Lease.leaseLost()} within its bounds (one renewal period plus the
 * command timeout after the hold disappeared; the lease as last confirmed while Redis is
 * unreachable), and as {@link LeaseLostException} from the owner's next release.
 */
@TimingBound
class LeaseLossReportTest {

    private static final Duration WATCHDOG = Duration.ofMillis(900);
    private static final Duration RENEWAL_PERIOD = WATCHDOG.dividedBy(3);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(200);
    /** Timer ticks, thread hand-offs and a busy 2-core machine; far below the bounds' own size. */
    private static final Duration MARGIN = Duration.ofMillis(1000);
    private static final String LOST = "was lost";

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private static LockClient newClient(Duration watchdog) {
        return LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(watchdog).commandTimeout(COMMAND_TIMEOUT).build());
    }

    private static long millisBetween(long fromNanos, long toNanos) {
        return TimeUnit.NANOSECONDS.toMillis(toNanos - fromNanos);
    }

    /** Records when {@code hold}'s loss notice completed, on the thread that completed it. */
    private static AtomicLong lossTime(LockHold hold) {
        AtomicLong at = new AtomicLong();
        hold.leaseLost().thenRun(() -> at.set(System.nanoTime()));
        return at;
    }

    @Test
    void leaseLostCompletesWithinOneRenewalPeriodOfAForceUnlockByAnotherClient() throws Exception {
        try (LockClient holderClient = newClient(WATCHDOG); LockClient other = newClient(WATCHDOG)) {
            LockHold hold = holderClient.getLock("forced").acquireAsync(1).get(5, TimeUnit.SECONDS);
            LockHold released = holderClient.getLock("forced-control").acquireAsync(1).get(5, TimeUnit.SECONDS);
            released.close();
            AtomicLong lostAt = lossTime(hold);

            assertThat(other.getLock("forced").forceUnlock()).isTrue();
            long forced = System.nanoTime();
            hold.leaseLost().get(5, TimeUnit.SECONDS);

            long took = millisBetween(forced, lostAt.get());
            assertThat(took).as("ms from forceUnlock to leaseLost()")
                    .isLessThan(RENEWAL_PERIOD.plus(COMMAND_TIMEOUT).plus(MARGIN).toMillis());
            assertThat(hold.isValid()).isFalse();
            assertThatThrownBy(hold::close).isInstanceOf(LeaseLostException.class);
            hold.close(); // a second close of the same handle does nothing
            assertThat(released.leaseLost()).as("a hold released normally is never reported lost").isNotDone();
        }
    }

    @Test
    void leaseLostCompletesWhenTheLeaseAsLastConfirmedRunsOutWhileRedisIsUnreachable() throws Exception {
        try (FaultProxy proxy = FaultProxy.to(REDIS.server());
             LockClient client = LockClient.create(LockConfig.builder().address(proxy.uri())
                     .watchdogTimeout(WATCHDOG).commandTimeout(COMMAND_TIMEOUT).build())) {
            long asked = System.nanoTime();
            LockHold hold = client.getLock("unreachable").acquireAsync(1).get(5, TimeUnit.SECONDS);
            proxy.blackHole();
            long cut = System.nanoTime();
            AtomicLong lostAt = lossTime(hold);

            hold.leaseLost().get(5, TimeUnit.SECONDS);

            // The lease was confirmed at the latest by an answer before the cut, for at most WATCHDOG
            // from a request sent no earlier than the acquire was asked for.
            assertThat(millisBetween(asked, lostAt.get())).as("ms from asking to leaseLost()")
                    .isGreaterThanOrEqualTo(WATCHDOG.toMillis());
            assertThat(millisBetween(cut, lostAt.get())).as("ms from the cut to leaseLost()")
                    .isLessThan(WATCHDOG.plus(MARGIN).toMillis());
            assertThat(hold.isValid()).isFalse();

            // Let Redis itself drop the key before the held-back renewals reach it, then reconnect.
            await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.commands().exists("unreachable") == 0);
            proxy.heal();
            assertThatThrownBy(hold::close).isInstanceOf(LeaseLostException.class);
        }
    }

    /**
     * The lease runs out while the owner's release is still waiting for Redis, and that release
     * then fails. Before the fix the lost hold stayed with the client: the unlock failed with a
     * plain LockException, and the owner's next lock() failed with LeaseLostException as if it
     * were a re-entry of the lost hold (ConnectionKillTest failed so on CI).
     */
    @Test
    void aLeaseThatRunsOutWhileItsReleaseIsInFlightEndsTheHoldWithLeaseLostException() throws Exception {
        Duration lease = Duration.ofMillis(1000);
        try (FaultProxy proxy = FaultProxy.to(REDIS.server());
             LockClient client = LockClient.create(LockConfig.builder().address(proxy.uri())
                     .watchdogTimeout(WATCHDOG).commandTimeout(Duration.ofMillis(400)).build())) {
            DistributedLock lock = client.getLock("released-too-late");
            long asked = System.nanoTime();
            LockHold hold = lock.acquireAsync(lease, 1).get(5, TimeUnit.SECONDS);
            proxy.blackHole();
            // The release leaves 200 ms before the lease's end and waits up to 400 ms for an answer.
            Thread.sleep(Math.max(0, lease.minusMillis(200).toMillis() - millisBetween(asked, System.nanoTime())));

            CompletableFuture<Void> release = lock.unlockAsync(1);
            hold.leaseLost().get(5, TimeUnit.SECONDS);
            assertThatThrownBy(() -> release.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(LeaseLostException.class);

            await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.commands().exists("released-too-late") == 0);
            proxy.heal();
            assertThatThrownBy(() -> lock.unlockAsync(1).join()).as("the hold is over")
                    .cause().isExactlyInstanceOf(IllegalMonitorStateException.class);
            LockHold next = lock.acquireAsync(1).get(5, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).as("the next acquisition is a new hold").isGreaterThan(hold.fencingToken());
            next.close();
        }
    }

    @Test
    void lockAndUnlockReportALostWatchdogLeaseWithLeaseLostExceptionAndTheWarnLine() throws Exception {
        try (LockClient client = newClient(WATCHDOG); LockClient other = newClient(WATCHDOG);
             CapturedLog log = new CapturedLog()) {
            DistributedLock lock = client.getLock("plain-forced");
            lock.lock();
            lock.lock();

            assertThat(other.getLock("plain-forced").forceUnlock()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> log.hasLine(LOST, "plain-forced"));

            assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
            // That ended the hold with its re-entry: nothing is left to release.
            assertThatThrownBy(lock::unlock).isExactlyInstanceOf(IllegalMonitorStateException.class);
            lock.lock();
            assertThat(lock.getHoldCount()).as("the next lock() is a new hold").isEqualTo(1);
            lock.unlock();
        }
    }

    @Test
    void aReEntryAfterTheLeaseWasLostThrowsLeaseLostException() throws Exception {
        try (LockClient client = newClient(WATCHDOG); LockClient other = newClient(WATCHDOG);
             CapturedLog log = new CapturedLog()) {
            DistributedLock lock = client.getLock("plain-reentered");
            lock.lock();
            assertThat(other.getLock("plain-reentered").forceUnlock()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> log.hasLine(LOST, "plain-reentered"));

            assertThatThrownBy(lock::lock).isInstanceOf(LeaseLostException.class);
            assertThat(other.getLock("plain-reentered").isLocked()).as("the refused re-entry took nothing").isFalse();
            // Whether the refused re-entry or this unlock ends the hold, a new lock() works afterwards.
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
            lock.lock();
            lock.unlock();
        }
    }

    @Test
    void anUnlockAfterAFixedLeaseRanOutThrowsLeaseLostException() throws Exception {
        try (LockClient client = newClient(WATCHDOG)) {
            DistributedLock lock = client.getLock("plain-fixed");
            lock.lock(Duration.ofMillis(300));
            // A real TTL must run out here.
            await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.commands().exists("plain-fixed") == 0);

            assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
            assertThat(lock.tryLock()).as("the lock is free for a new hold").isTrue();
            lock.unlock();
        }
    }

    /**
     * Before the fix one key of the wrong type failed the whole renewal batch with WRONGTYPE,
     * round after round, and every other hold in it expired while its owner believed it held.
     */
    @Test
    void aKeyOfTheWrongTypeLosesOnlyItsOwnHold() throws Exception {
        try (LockClient client = newClient(WATCHDOG); CapturedLog log = new CapturedLog()) {
            DistributedLock spoiled = client.getLock("wrongtype-spoiled");
            DistributedLock kept = client.getLock("wrongtype-kept");
            spoiled.lockAsync(1).get(5, TimeUnit.SECONDS);
            kept.lockAsync(2).get(5, TimeUnit.SECONDS);

            REDIS.commands().del("wrongtype-spoiled");
            REDIS.commands().set("wrongtype-spoiled", "not a lock");
            // Several renewal periods and more than a whole lease: a real TTL must run out here.
            Thread.sleep(WATCHDOG.toMillis() * 2);

            assertThat(kept.isHeldBy(2)).as("the other hold of the batch is still renewed").isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> log.hasLine(LOST, "wrongtype-spoiled"));
            assertThat(log.hasLine(LOST, "wrongtype-kept")).isFalse();
            kept.unlockAsync(2).get(5, TimeUnit.SECONDS);
        }
    }

    /**
     * Releases racing renewals, many times over, on several locks with a short renewal period:
     * none of them may be reported as a lost lease.
     */
    @Test
    void releasesRacingRenewalsAreNeverReportedAsLostLeases() throws Exception {
        Duration shortWatchdog = Duration.ofMillis(450);
        try (LockClient client = newClient(shortWatchdog); CapturedLog log = new CapturedLog()) {
            List<CompletableFuture<Void>> owners = new ArrayList<>();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            for (int owner = 1; owner <= 4; owner++) {
                DistributedLock lock = client.getLock("race-" + owner);
                long id = owner;
                owners.add(CompletableFuture.runAsync(() -> {
                    while (System.nanoTime() - until < 0) {
                        lock.lockAsync(id).join();
                        lock.lockAsync(id).join();
                        lock.unlockAsync(id).join();
                        lock.unlockAsync(id).join();
                    }
                }));
            }
            CompletableFuture.allOf(owners.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            // Give a renewal that raced the last release the time to answer.
            Thread.sleep(shortWatchdog.toMillis());

            assertThat(log.hasLine(LOST)).as("no lease was lost").isFalse();
        }
    }

    /**
     * Redis stops answering for a second (paused with SIGSTOP, as {@code DEBUG SLEEP} would), twice, while owners lock and
     * unlock: calls time out, and some releases run only after their caller gave up on them. No
     * key expires (the lease is three times the pause), so no lease may be reported lost; in the
     * soak run before the fix, such pauses produced lost-lease warnings for holds released late.
     */
    @Test
    void pausesShorterThanTheLeaseAreNeverReportedAsLostLeases() throws Exception {
        try (LockClient client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(Duration.ofSeconds(3)).commandTimeout(Duration.ofMillis(300)).build());
             CapturedLog log = new CapturedLog()) {
            AtomicBoolean running = new AtomicBoolean(true);
            List<CompletableFuture<Void>> owners = new ArrayList<>();
            for (int owner = 1; owner <= 4; owner++) {
                DistributedLock lock = client.getLock("paused-" + owner);
                long id = owner;
                owners.add(CompletableFuture.runAsync(() -> {
                    while (running.get()) {
                        try {
                            lock.lockAsync(id).join();
                            lock.unlockAsync(id).join();
                        } catch (CompletionException redisPaused) {
                            // expected while Redis sleeps; the library settles what was lost
                        }
                    }
                }));
            }
            for (int pause = 0; pause < 2; pause++) {
                Thread.sleep(300);
                REDIS.server().pause();
                Thread.sleep(1000);
                REDIS.server().resume();
            }
            Thread.sleep(300);
            running.set(false);
            CompletableFuture.allOf(owners.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            // Let every settlement and a last renewal round answer.
            Thread.sleep(1500);

            assertThat(log.hasLine(LOST)).as("no lease was lost").isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.commands().keys("paused-*").isEmpty());
        }
    }
}
