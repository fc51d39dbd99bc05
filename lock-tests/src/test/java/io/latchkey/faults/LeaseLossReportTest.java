package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.OneRedis;
import io.latchkey.topology.CapturedLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The watchdog reports a lost lease exactly when a hold is known gone, and for that hold only. */
class LeaseLossReportTest {

    private static final Duration WATCHDOG = Duration.ofMillis(900);
    private static final String LOST = "was lost";

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private static LockClient newClient(Duration watchdog) {
        return LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(watchdog).commandTimeout(Duration.ofMillis(200)).build());
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
