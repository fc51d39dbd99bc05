package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.contract.CriticalSection;
import io.latchkey.contract.CriticalSection.Acquire;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
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
 * Mutual exclusion checked, not assumed: two clients (as two JVMs would) with eight threads each
 * contend for one lock through every blocking acquire flavour. Each hold records entering and
 * leaving the critical section; the test asserts that there was never more than one holder and
 * that a counter updated without any atomicity of its own counted every hold.
 */
class MutualExclusionTest {

    private final CriticalSection section = new CriticalSection();

    private static final int CLIENTS = 2;
    private static final int THREADS_PER_CLIENT = 8;
    private static final int ACQUISITIONS_PER_THREAD = 25;

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static final List<Acquire> FLAVOURS = CriticalSection.flavours(Duration.ofSeconds(30), Duration.ofSeconds(10));

    @Test
    void neverMoreThanOneHolderAndEveryHoldCounted() throws Exception {
        String name = "latchkey-test:mutual-exclusion:" + UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                LockClient client = LockClient.create(LockConfig.builder().address(redis.uri())
                        .watchdogTimeout(Duration.ofSeconds(10)).commandTimeout(Duration.ofSeconds(2)).build());
                clients.add(client);
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    Acquire flavour = FLAVOURS.get(t % FLAVOURS.size());
                    DistributedLock lock = client.getLock(name);
                    threads.execute(section.contender(lock, flavour, start, ACQUISITIONS_PER_THREAD));
                }
            }
            start.countDown();
            threads.shutdown();
            assertTrue(threads.awaitTermination(90, TimeUnit.SECONDS), "the contenders did not finish");

            section.assertExclusive(CLIENTS * THREADS_PER_CLIENT * ACQUISITIONS_PER_THREAD);
            assertFalse(clients.get(0).getLock(name).isLocked(), "every hold was released");
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
    }
}
