package io.latchkey.internal.semaphore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConfig;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import io.latchkey.internal.redis.ScriptedRedis;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The semaphore's protocol below Redis: what it sends to its scripts and how it reads their
 * answers (the scripts themselves are tested against a real Redis in lock-tests).
 */
class SemaphoreProtocolTest {

    private static final String CLIENT = "client-1";
    private static final long OWNER = 7;
    private static final LeaseTerm TWO_SECONDS = LeaseTerm.fixed(Duration.ofSeconds(2));

    private final ScriptedRedis redis = new ScriptedRedis();
    private final SemaphoreProtocol semaphore = new SemaphoreProtocol("pool", 3,
            redis.context(CLIENT, LockConfig.builder().address("redis://127.0.0.1:6379").build()));

    @Test
    void anAcquireSendsTheLeaseThePermitAndTheLimitAndReadsAGrant() {
        redis.answer(List.of(1L, 1L));

        TryResult result = semaphore.tryAcquire(OWNER, TWO_SECONDS, 0).join();

        assertTrue(result.acquired());
        assertEquals(List.of("2000", CLIENT + ":" + OWNER, "3"), redis.argv(0));
        assertEquals(2, redis.keys(0).size(), "the permits and the limit");
    }

    @Test
    void aFullSemaphoreIsBusyForTheTimeRedisNames() {
        redis.answer(List.of(0L, 250L));

        TryResult result = semaphore.tryAcquire(OWNER, TWO_SECONDS, 0).join();

        assertFalse(result.acquired());
        assertEquals(250, result.waitMillis());
    }

    @Test
    void anotherLimitInRedisFailsTheAcquireNamingBothLimits() {
        redis.answer(List.of(-1L, 5L));

        CompletionException failure = assertThrows(CompletionException.class,
                () -> semaphore.tryAcquire(OWNER, TWO_SECONDS, 0).join());

        IllegalStateException cause = assertInstanceOf(IllegalStateException.class, failure.getCause());
        assertTrue(cause.getMessage().contains("limit of 5, not 3"), cause.getMessage());
    }

    @Test
    void aReleaseSendsThePermitAndThePublishCommandAndIsDoneOnOne() {
        redis.answer(1L);

        assertNull(semaphore.release(OWNER).join());

        assertEquals(List.of(CLIENT + ":" + OWNER, "publish"), redis.argv(0));
        assertEquals(3, redis.keys(0).size(), "the permits, the limit and the channel");
    }

    @Test
    void aReleaseOfAPermitWhoseLeaseRanOutOrThatIsGoneSaysItIsNotHeld() {
        redis.answer(0L);
        CompletionException expired = assertThrows(CompletionException.class, () -> semaphore.release(OWNER).join());
        assertInstanceOf(IllegalMonitorStateException.class, expired.getCause());

        redis.answer(ScriptedRedis.NIL);
        CompletionException gone = assertThrows(CompletionException.class, () -> semaphore.release(OWNER).join());
        assertInstanceOf(IllegalMonitorStateException.class, gone.getCause());
    }

    @Test
    void everyKeyOfACallIsInTheNamesSlot() {
        redis.answer(1L);
        semaphore.release(OWNER).join();

        // One Cluster slot for the script.
        for (String key : redis.keys(0)) {
            assertEquals(SlotHash.getSlot("pool"), SlotHash.getSlot(key), key);
        }
    }
}
