package io.latchkey.redlock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.latchkey.spi.KindFailures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** RedLock's own failures: typed as the first failure that counts, and in RedLock's words. */
class RedLockFailuresTest {

    private static final String LOCK = "orders:42";

    @Test
    void notHeldByAMajorityCountsTheMasters() {
        IllegalMonitorStateException byMajority = RedLockFailures.notHeldByMajority(LOCK, 7, 2, 3);
        assertTrue(byMajority.getMessage().contains("2 of 3"), byMajority.getMessage());
    }

    @Test
    void quorumFailuresAreTypedAsTheirFirstFailure() {
        LockException masterLate = RedLockFailures.masterTimedOut("redis://***@m1:6379", Duration.ofMillis(100));
        assertEquals(LockTimeoutException.class, masterLate.getClass());
        assertEquals(null, masterLate.getCause(), "a master's late answer is handled where it arrives");

        LockException acquire = RedLockFailures.quorumNotReachedInTime(LOCK, 1, 3, 2, masterLate);
        assertEquals(LockTimeoutException.class, acquire.getClass());
        assertTrue(acquire.getMessage().contains("only 1 of 3") && acquire.getMessage().contains("majority of 2"),
                acquire.getMessage());

        LockException notConnected = RedLockFailures.masterNotConnected("redis://m2:6379",
                KindFailures.typedAs(new RedisConnectionException("Unable to connect"), "cannot connect to redis://m2:6379"));
        assertEquals(LockConnectionException.class, notConnected.getClass());
        assertEquals(LockConnectionException.class, RedLockFailures.quorumNotReached(LOCK, 1, 3, 2, notConnected).getClass());
        assertEquals(LockConnectionException.class, RedLockFailures.masterNotConnected("redis://m2:6379", null).getClass());

        LockException refused = KindFailures.typedAs(new RedisCommandExecutionException("WRONGTYPE x"), "Redis refused it");
        assertEquals(LockRefusedException.class,
                RedLockFailures.releaseQuorumNotReached(LOCK, 1, 2, 3, 2, refused).getClass());
        assertEquals(LockException.class, RedLockFailures.quorumNotReachedInTime(LOCK, 1, 3, 2, null).getClass());
        assertEquals(LockConnectionException.class, RedLockFailures.mastersUnreachable(1, 3, 2,
                KindFailures.typedAs(new ClosedChannelException(), "cannot connect to redis://m1")).getClass());
    }

    @Test
    void aMasterUriQuotedByACauseShowsNoPassword() {
        RedisConnectionException quoting = new RedisConnectionException("Cannot connect Redis Sentinel at redis://:hunter2@s1:26379");
        LockException mapped = RedLockFailures.masterConnectFailed("redis://***@m1:6379", quoting);
        assertFalse(mapped.getMessage().contains("hunter2"), "no password: " + mapped.getMessage());
        assertTrue(mapped.getMessage().contains("s1:26379"), mapped.getMessage());
    }

    @Test
    void aMasterTimeoutIsRecognisedAsATimeout() {
        assertTrue(KindFailures.isTimeout(RedLockFailures.masterTimedOut("m1", Duration.ofMillis(100))));
    }
}
