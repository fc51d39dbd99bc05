package io.latchkey.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.contract.CriticalSection;
import io.latchkey.contract.CriticalSection.Acquire;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual exclusion of the RedLock checked, not assumed: two clients (as two JVMs would) on the
 * same three masters, with threads of each contending through every blocking acquire flavour.
 * Each hold records entering and leaving the critical section; there must never be two holders,
 * and a counter with no atomicity of its own must count every hold.
 */
class RedLockMutualExclusionTest {

    private final CriticalSection section = new CriticalSection();

    private static final int CLIENTS = 2;
    private static final int THREADS_PER_CLIENT = 3;
    private static final int ACQUISITIONS_PER_THREAD = 10;

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

    private static final List<Acquire> FLAVOURS = CriticalSection.flavours(Duration.ofSeconds(60), Duration.ofSeconds(10));

    @Test
    void neverTwoHoldersAcrossTwoClientsAndEveryHoldCounted() throws Exception {
        String name = "latchkey-test:RedLockMutualExclusionTest:" + UUID.randomUUID();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                LockClient client = masters.client(masters.config(Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofSeconds(10)).build());
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    Acquire flavour = FLAVOURS.get((c * THREADS_PER_CLIENT + t) % FLAVOURS.size());
                    DistributedLock lock = client.getRedLock(name);
                    threads.execute(section.contender(lock, flavour, start, ACQUISITIONS_PER_THREAD));
                }
            }
            start.countDown();
            threads.shutdown();
            assertTrue(threads.awaitTermination(100, TimeUnit.SECONDS), "the contenders did not finish");

            section.assertExclusive(CLIENTS * THREADS_PER_CLIENT * ACQUISITIONS_PER_THREAD);
            // An unlock returns once a majority released; the last master may answer a moment later.
            await().atMost(Duration.ofSeconds(5)).until(() -> masters.mastersHolding(name).isEmpty());
        } finally {
            threads.shutdownNow();
            masters.closeClients();
        }
    }
}
