package io.latchkey.fair;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * API.md, "a short outage during a wait", with the fair lock's arrival order: a waiter whose try
 * timed out is settled and tried again within its wait, and keeps its place in line meanwhile.
 */
class FairLockTimedOutTryTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static RedisServer server;
    private static LockClient client;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        client = LockClient.create(LockConfig.builder().address(server.uri()).commandTimeout(COMMAND_TIMEOUT).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aWaiterWhoseTryTimedOutKeepsItsPlaceAheadOfALaterArrival() throws Exception {
        DistributedLock fair = client.getFairLock("latchkey-test:FairLockTimedOutTryTest:" + UUID.randomUUID());
        long holder = 1;
        long first = 2;
        long second = 3;
        fair.lockAsync(LEASE, holder).join();

        CompletableFuture<Boolean> firstWaits;
        CompletableFuture<Boolean> secondWaits;
        server.pause();
        try {
            // The first waiter's try is written at 0 and times out at 1 s, while Redis is paused;
            // the second's is written at 0.6 s and answered once Redis resumes at 1.2 s. Redis
            // then runs the first's try, the second's, and the first's settlement, in that order.
            firstWaits = fair.tryLockAsync(WAIT, LEASE, first);
            Thread.sleep(600);
            secondWaits = fair.tryLockAsync(WAIT, LEASE, second);
            Thread.sleep(600);
        } finally {
            server.resume();
        }
        // Both in line, the first tried again after its settlement.
        Thread.sleep(1000);
        assertFalse(firstWaits.isDone() || secondWaits.isDone(), "both still wait for the holder");

        fair.unlockAsync(holder).join();
        assertTrue(firstWaits.get(5, TimeUnit.SECONDS), "the first arrival is granted first");
        assertFalse(secondWaits.isDone(), "the later arrival waits behind it");
        fair.unlockAsync(first).join();
        assertTrue(secondWaits.get(5, TimeUnit.SECONDS));
        fair.unlockAsync(second).join();
    }
}
