package io.latchkey.internal.rw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConfig;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.spi.TryResult;
import io.latchkey.internal.redis.ScriptedRedis;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The read-write lock's two sides below Redis: what each sends to the shared acquire script and
 * how it reads the answer (the scripts themselves are tested against a real Redis in lock-tests).
 */
class ReadWriteProtocolTest {

    private static final String CLIENT = "client-1";
    private static final long OWNER = 7;
    private static final LeaseTerm TWO_SECONDS = LeaseTerm.fixed(Duration.ofSeconds(2));

    private final ScriptedRedis redis = new ScriptedRedis();
    private final LockContext context = redis.context(CLIENT, LockConfig.builder().address("redis://127.0.0.1:6379")
            .watchdogTimeout(Duration.ofSeconds(12)).build());
    private final ReadWriteKeys keys = ReadWriteKeys.of(context.keys("doc"));
    private final ReadLockProtocol read = new ReadLockProtocol("doc", keys, context);
    private final WriteLockProtocol write = new WriteLockProtocol("doc", keys, context);

    @Test
    void eachSideNamesItselfItsFieldItsSiblingsFieldTheLeaseAndTheWatchdogsTerm() {
        redis.answer(List.of(1L, 1L, 41L));
        redis.answer(List.of(1L, 1L, 42L));

        assertTrue(read.tryAcquire(OWNER, TWO_SECONDS, 0).join().acquired());
        assertTrue(write.tryAcquire(OWNER, TWO_SECONDS, 0).join().acquired());

        // side, lease, field, sibling, call id, held, the watchdog's term in milliseconds
        List<String> reading = redis.argv(0);
        assertEquals(List.of("read", "2000", CLIENT + ":" + OWNER + ":read", CLIENT + ":" + OWNER + ":write"),
                reading.subList(0, 4));
        assertEquals("12000", reading.get(6));
        List<String> writing = redis.argv(1);
        assertEquals(List.of("write", "2000", CLIENT + ":" + OWNER + ":write", CLIENT + ":" + OWNER + ":read"),
                writing.subList(0, 4));
        assertEquals(redis.keys(0), redis.keys(1), "both sides share the lock's keys");
    }

    @Test
    void aBusyAnswerIsAWaitOfTheTimeRedisNames() {
        redis.answer(List.of(0L, 300L));

        TryResult result = write.tryAcquire(OWNER, TWO_SECONDS, 0).join();

        assertFalse(result.acquired());
        assertEquals(300, result.waitMillis());
    }

    @Test
    void aWriteAskedForByAnOwnerThatOnlyReadsIsRefusedAsAnUpgrade() {
        redis.answer(List.of(-2L, 0L));

        CompletionException failure = assertThrows(CompletionException.class,
                () -> write.tryAcquire(OWNER, TWO_SECONDS, 0).join());

        assertInstanceOf(IllegalMonitorStateException.class, failure.getCause());
    }

    @Test
    void everyKeyOfACallIsInTheNamesSlot() {
        redis.answer(List.of(0L, 300L));
        read.tryAcquire(OWNER, TWO_SECONDS, 0).join();

        // One Cluster slot for the script.
        for (String key : redis.keys(0)) {
            assertEquals(SlotHash.getSlot("doc"), SlotHash.getSlot(key), key);
        }
    }
}
