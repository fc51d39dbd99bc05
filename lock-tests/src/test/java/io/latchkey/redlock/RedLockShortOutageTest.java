package io.latchkey.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHold;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * API.md, "a short outage during a wait", for RedLock over three masters: masters stopped for a
 * second and started again on their ports while {@code tryAcquire(8 s)} waits on a free lock.
 * One master down is outlived by the quorum; a majority down is outlived by the wait, which
 * tries again until the masters are back. No master keeps a hold the caller does not know of.
 */
class RedLockShortOutageTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(300);
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration WAIT = Duration.ofSeconds(8);
    private static final Duration OUTAGE = Duration.ofSeconds(1);

    private static Masters masters;

    @BeforeAll
    static void startMasters() {
        masters = Masters.start(3);
    }

    @AfterAll
    static void stopMasters() {
        if (masters != null) {
            masters.close();
        }
    }

    @AfterEach
    void repair() {
        masters.closeClientsAndRepair();
    }

    /** Masters stopped for a second, started again one after the other. */
    private record Outage(CompletableFuture<Void> over, AtomicInteger restarting) {
    }

    /** Stops masters {@code 0 .. count-1} now and starts them again, in that order, after {@link #OUTAGE}. */
    private static Outage stopForASecond(int count) {
        for (int i = 0; i < count; i++) {
            masters.get(i).stop();
        }
        AtomicInteger restarting = new AtomicInteger();
        CompletableFuture<Void> over = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < count; i++) {
                restarting.incrementAndGet();
                masters.get(i).restart();
            }
        }, CompletableFuture.delayedExecutor(OUTAGE.toMillis(), TimeUnit.MILLISECONDS));
        return new Outage(over, restarting);
    }

    @ParameterizedTest(name = "{0} of 3 masters stopped")
    @ValueSource(ints = {1, 2, 3})
    void aWaitOnAFreeRedLockRidesOutMastersStoppedForASecond(int stopped) throws InterruptedException {
        LockClient client = masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
        String name = "latchkey-test:RedLockShortOutageTest:" + UUID.randomUUID();
        DistributedLock lock = client.getRedLock(name);
        assertThat(lock.tryLock()).as("all masters up: the client is connected").isTrue();
        lock.unlock();

        Outage outage = stopForASecond(stopped);
        Optional<LockHold> held = lock.tryAcquire(WAIT);

        assertThat(held).as("acquired within the wait").isPresent();
        // A majority is 2 of 3: with 2 or 3 stopped, 1 or 2 of them had to be back. (Not "all
        // restarted": the lock may be taken before the last restart returns.)
        assertThat(outage.restarting().get()).as("a majority was needed again").isGreaterThanOrEqualTo(stopped - 1);
        held.get().close();
        outage.over().join();
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).equals(List.of()));

        Outage again = stopForASecond(stopped);
        Optional<LockHold> heldAsync = lock.tryAcquireAsync(WAIT, Duration.ofSeconds(10), 77L).join();
        assertThat(heldAsync).as("the async form, acquired within the wait").isPresent();
        heldAsync.get().close();
        again.over().join();
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).equals(List.of()));
    }

    /**
     * A majority paused past the attempt timeout: the first try is unanswered and tried again,
     * and that retry is queued on each paused master behind the first try, which the master
     * grants once resumed. The late grant's release must not take back the retry's grant, which
     * the RedLock counts: once acquired, a majority of masters must still hold the lock.
     */
    @Test
    void aLateGrantOfAnUnansweredTryIsNotReleasedOverTheRetrysGrant() throws InterruptedException {
        LockClient client = masters.client(masters.config(Duration.ofSeconds(2), ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
        String name = "latchkey-test:RedLockShortOutageTest:late:" + UUID.randomUUID();
        DistributedLock lock = client.getRedLock(name);
        assertThat(lock.tryLock()).as("all masters up: the client is connected").isTrue();
        lock.unlock();

        masters.get(0).pause();
        masters.get(1).pause();
        CompletableFuture<Optional<LockHold>> acquiring = lock.tryAcquireAsync(WAIT, Duration.ofSeconds(30), 78L);
        // Within the first retry's attempt timeout: the first try (0 .. 300 ms) went unanswered,
        // the retry (from about 310 ms) waits on each paused master behind it.
        Thread.sleep(ATTEMPT_TIMEOUT.toMillis() + 150);
        masters.get(0).resume();
        masters.get(1).resume();
        Optional<LockHold> held = acquiring.join();
        assertThat(held).as("acquired within the wait").isPresent();

        // Whatever the late grants' releases do has been done by then.
        Thread.sleep(500);
        assertThat(masters.mastersHolding(name)).as("masters that still hold the acquired RedLock")
                .hasSizeGreaterThanOrEqualTo(masters.majority());
        held.get().close();
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).equals(List.of()));
    }
}
