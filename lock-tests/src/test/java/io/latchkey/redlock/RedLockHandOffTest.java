package io.latchkey.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockEventListener;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import io.latchkey.TimingBound;
import io.latchkey.contract.CriticalSection;
import io.latchkey.contract.HotContenders;
import io.latchkey.contract.TwoHotClients;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * RedLock with local hand-off: a hot RedLock's quorum hold passes between the owners of one
 * client without a round trip, while another client's waiter still gets it within the bound, a
 * quorum lost meanwhile is reported to the owner that holds it then, tokens keep growing, and
 * the lock stays exclusive. Each against three real masters.
 */
@TimingBound
class RedLockHandOffTest {

    private static final Duration COMMAND = Duration.ofMillis(700);
    private static final Duration ATTEMPT = Duration.ofMillis(400);
    private static final Duration WATCHDOG = Duration.ofMillis(1500);

    private static Masters masters;
    private static final RedisClient RAW = RedisClient.create();

    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "redlock-hand-off-test");
        thread.setDaemon(true);
        return thread;
    });
    private final List<LockEventListener.HandedOff> handOffs = new CopyOnWriteArrayList<>();
    private String name;

    @BeforeAll
    static void startMasters() {
        masters = Masters.start(3);
    }

    @AfterAll
    static void stopMasters() {
        RAW.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        if (masters != null) {
            masters.close();
        }
    }

    @BeforeEach
    void nameTheLock(TestInfo test) {
        name = "latchkey-test:redlock-hand-off:" + test.getTestMethod().map(m -> m.getName()).orElse("?") + ":" + UUID.randomUUID();
    }

    @AfterEach
    void closeClientsAndRepair() {
        threads.shutdownNow();
        masters.closeClientsAndRepair();
    }

    private LockClient client(UnaryOperator<LockConfig.Builder> settings) {
        return masters.client(settings.apply(masters.config(COMMAND, ATTEMPT, WATCHDOG)
                .eventListener(new LockEventListener() {
                    @Override
                    public void handedOff(HandedOff event) {
                        handOffs.add(event);
                    }
                })).build());
    }

    /** @return how many scripts master {@code index} ran since it started */
    private static long scriptCalls(int index) {
        RedisURI uri = RedisURI.create(masters.get(index).uri());
        uri.setTimeout(Duration.ofSeconds(5));
        try (StatefulRedisConnection<String, String> connection = RAW.connect(uri)) {
            long calls = 0;
            for (String line : connection.sync().info("commandstats").split("\\r?\\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    calls += Long.parseLong(line.replaceAll("^[^:]*:calls=([0-9]+),.*", "$1").strip());
                }
            }
            return calls;
        }
    }

    private static long scriptCallsOnEveryMaster() {
        long calls = 0;
        for (int i = 0; i < masters.size(); i++) {
            calls += scriptCalls(i);
        }
        return calls;
    }

    /**
     * Eight threads of one client take a hot RedLock 800 times. Through Redis, each acquisition
     * costs an acquire and a release on every master (and a fence raise on most): 6 or more
     * scripts per acquisition over three masters. Passed on locally, the client goes to the
     * masters about once per token block, or when no thread happens to wait.
     *
     * @return the scripts the masters ran per acquisition
     */
    private double scriptsPerAcquisition(LockClient client, List<Long> tokens) throws Exception {
        DistributedLock lock = client.getRedLock(name);
        int threadCount = 8;
        int perThread = 100;
        CriticalSection section = new CriticalSection();
        CyclicBarrier start = new CyclicBarrier(threadCount);
        long before = scriptCallsOnEveryMaster();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            workers.add(threads.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                for (int n = 0; n < perThread; n++) {
                    try (LockHold hold = lock.acquire()) {
                        section.enterAndLeave(() -> tokens.add(hold.fencingToken()));
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        section.assertExclusive(threadCount * perThread);
        return (double) (scriptCallsOnEveryMaster() - before) / (threadCount * perThread);
    }

    @Test
    void aHotRedLockPassesItsQuorumHoldLocallyWithTokensThatKeepGrowing() throws Exception {
        List<Long> tokens = new CopyOnWriteArrayList<>();
        double perAcquisition = scriptsPerAcquisition(client(LockConfig.Builder::localHandOff), tokens);
        assertTrue(perAcquisition < 1.0, "scripts per acquisition on the three masters: " + perAcquisition
                + " (hand-offs " + handOffs.size() + ")");
        assertFalse(handOffs.isEmpty());
        assertEquals("red", handOffs.get(0).kind());
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "token " + i + " went back: " + tokens.get(i - 1) + " then " + tokens.get(i));
        }
    }

    @Test
    void withHandOffOffEveryAcquisitionGoesToTheMasters() throws Exception {
        List<Long> tokens = new CopyOnWriteArrayList<>();
        double perAcquisition = scriptsPerAcquisition(client(LockConfig.Builder::noLocalHandOff), tokens);
        assertTrue(perAcquisition >= 4.0, "scripts per acquisition on the three masters: " + perAcquisition);
        assertTrue(handOffs.isEmpty());
    }

    @Test
    void tokensOfTheNextQuorumHoldExceedEveryTokenPassedOnLocally() throws Exception {
        // A bound of one hand-off while the other client waits: the hold goes back and forth
        // between the clients, and each new quorum hold must come above the last block handed on.
        DistributedLock hot = client(builder -> builder.localHandOff(1, Duration.ofMillis(50))).getRedLock(name);
        DistributedLock other = client(LockConfig.Builder::localHandOff).getRedLock(name);
        List<Long> tokens = new CopyOnWriteArrayList<>();
        CriticalSection section = new CriticalSection();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            DistributedLock lock = i < 4 ? hot : other;
            workers.add(threads.submit(() -> {
                start.await();
                for (int n = 0; n < 40; n++) {
                    try (LockHold hold = lock.acquire()) {
                        section.enterAndLeave(() -> tokens.add(hold.fencingToken()));
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        section.assertExclusive(6 * 40);
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "token " + i + " went back: " + tokens.get(i - 1) + " then " + tokens.get(i));
        }
        assertFalse(handOffs.isEmpty(), "no local hand-off");
    }

    @Test
    void aWaiterOfAnotherClientGetsTheRedLockWithinTheBoundWhileThisClientsThreadsKeepContending() throws Exception {
        DistributedLock hot = client(builder -> builder.localHandOff(1_000_000, Duration.ofMillis(100))).getRedLock(name);
        DistributedLock remote = client(LockConfig.Builder::localHandOff).getRedLock(name);
        HotContenders contenders = HotContenders.start(threads, 4, hot, handOffs, () -> Thread.sleep(1));
        try {
            for (int round = 0; round < 5; round++) {
                long started = System.nanoTime();
                assertTrue(remote.tryLock(Duration.ofSeconds(5)), "the other client's waiter starved");
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                remote.unlock();
                // The bound is 100 ms of hand-offs, then a turn on each master; generous for a loaded machine.
                assertTrue(waitedMillis < 1_500, "the other client waited " + waitedMillis + " ms, bound 100 ms");
            }
        } finally {
            contenders.stop();
        }
        contenders.awaitStopped();
    }

    @Test
    void twoHotClientsTakeTheRedLockInTurnsAllAlong() throws Exception {
        // The two JVMs of the benchmarks' redlock-two-jvms, as two clients: each passes the quorum
        // hold on among its threads, and gives the other its turn within the same bound in grants
        // as the plain lock (LocalHandOffTest's twoHotClientsTakeTurnsAllAlong).
        int maxHandOffs = 8;
        List<DistributedLock> locks = List.of(
                client(builder -> builder.localHandOff(maxHandOffs, Duration.ofSeconds(10))).getRedLock(name),
                client(builder -> builder.localHandOff(maxHandOffs, Duration.ofSeconds(10))).getRedLock(name));
        TwoHotClients.assertTurnsWithinBound(TwoHotClients.grants(threads, locks, 8, 60), maxHandOffs);
        assertFalse(handOffs.isEmpty(), "no local hand-off");
    }

    @Test
    void oneMasterLostWhileTheHoldIsPassedOnLosesNoLeaseAndHandOffsGoOn() throws Exception {
        DistributedLock lock = client(LockConfig.Builder::localHandOff).getRedLock(name);
        LockHold first = lock.acquire();
        CompletableFuture<LockHold> second = lock.acquireAsync(7_000_000_001L);
        Thread.sleep(200); // the second owner waits in the cohort
        first.close();
        LockHold passed = second.get(5, TimeUnit.SECONDS);
        assertFalse(handOffs.isEmpty(), "the hold was not passed on locally");

        masters.kill(1);
        // A RedLock outlives a minority: two renewal periods and more, and the owner still holds.
        Thread.sleep(WATCHDOG.multipliedBy(2).toMillis());
        assertFalse(passed.leaseLost().isDone(), "one master of three lost the quorum's lease");
        assertTrue(passed.isValid());

        // The lost connection stopped hand-offs until a majority confirmed the quorum again: they go on.
        int before = handOffs.size();
        CompletableFuture<LockHold> third = lock.acquireAsync(7_000_000_002L);
        Thread.sleep(200);
        passed.close();
        third.get(5, TimeUnit.SECONDS).close();
        assertEquals(before + 1, handOffs.size(), "the hold was not passed on after the majority confirmed it");
    }

    @Test
    void aQuorumLostWhileTheHoldIsPassedOnIsReportedToTheOwnerThatHoldsItThen() throws Exception {
        LockClient client = client(LockConfig.Builder::localHandOff);
        DistributedLock lock = client.getRedLock(name);
        // Two owners take turns; once the hold has been passed on, the majority of masters goes.
        LockHold first = lock.acquire();
        CompletableFuture<LockHold> second = lock.acquireAsync(7_000_000_000L);
        Thread.sleep(200); // the second owner waits in the cohort
        first.close();
        LockHold passed = second.get(5, TimeUnit.SECONDS);
        assertFalse(handOffs.isEmpty(), "the hold was not passed on locally");
        assertTrue(passed.fencingToken() > first.fencingToken());

        masters.kill(2);
        // Renewals fail on two masters of three: the quorum's lease runs out unconfirmed
        // (WATCHDOG less the time since the last renewal), and the owner holding it hears of it.
        passed.leaseLost().get(WATCHDOG.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        assertFalse(passed.isValid());
        assertThrows(io.latchkey.LeaseLostException.class, passed::close);
        // No local grant of a lost quorum: the next owner goes to the masters, where no majority answers.
        assertThrows(LockException.class, () -> lock.tryLock(Duration.ofMillis(500)));
    }
}
