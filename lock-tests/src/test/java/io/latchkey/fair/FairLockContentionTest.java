package io.latchkey.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
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
import org.junit.jupiter.api.Timeout;

/**
 * Two hundred threads on one fair lock, half on each of two clients (as two JVMs would be), every
 * blocking acquire flavour among them: all of them finish, the overlap detector never sees two
 * holders, an unguarded counter counts every hold, and nothing is left in Redis afterwards.
 */
class FairLockContentionTest {

    private final CriticalSection section = new CriticalSection();

    private static final int CLIENTS = 2;
    private static final int THREADS = 200;
    private static final int ACQUISITIONS_PER_THREAD = 3;

    private static RedisServer redis;
    private static FairLockRedis raw;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        raw = new FairLockRedis(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (raw != null) {
            raw.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static final List<Acquire> FLAVOURS = CriticalSection.flavours(Duration.ofSeconds(150), Duration.ofSeconds(30));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twoHundredThreadsAllFinishAndNeverOverlap() throws Exception {
        String name = "latchkey-test:fair-contention:" + UUID.randomUUID();
        List<LockClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(LockClient.create(LockConfig.builder().address(redis.uri())
                        .watchdogTimeout(Duration.ofSeconds(30)).commandTimeout(Duration.ofSeconds(5)).build()));
            }
            for (int t = 0; t < THREADS; t++) {
                DistributedLock lock = clients.get(t % CLIENTS).getFairLock(name);
                Acquire flavour = FLAVOURS.get(t % FLAVOURS.size());
                threads.execute(section.contender(lock, flavour, start, ACQUISITIONS_PER_THREAD));
            }
            start.countDown();
            threads.shutdown();
            assertTrue(threads.awaitTermination(150, TimeUnit.SECONDS), "the contenders did not finish");

            section.assertExclusive(THREADS * ACQUISITIONS_PER_THREAD);
            assertEquals(List.of(), raw.keysOf(name), "nothing is left in Redis once idle");
        } finally {
            threads.shutdownNow();
            clients.forEach(LockClient::close);
        }
    }
}
