package io.latchkey.internal.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Which failures leave a call's outcome unknown, and which refusals pass, as settling needs them. */
class RedisFailuresTest {

    @Test
    void aCallIsOfUnknownOutcomeUnlessRedisAnsweredIt() {
        assertTrue(RedisFailures.isOutcomeUnknown(wrapped(new RedisCommandTimeoutException("timed out"))));
        assertTrue(RedisFailures.isOutcomeUnknown(wrapped(new RedisConnectionException("reset"))));
        assertTrue(RedisFailures.isOutcomeUnknown(wrapped(new RedisException("Connection disconnected"))));
        assertFalse(RedisFailures.isOutcomeUnknown(wrapped(new RedisCommandExecutionException("WRONGTYPE"))));
        assertFalse(RedisFailures.isOutcomeUnknown(new CompletionException(new IllegalMonitorStateException())));
    }

    @Test
    void refusalsThatALaterTryCanGetPastAreTold() {
        for (String passing : new String[] {"CLUSTERDOWN The cluster is down", "TRYAGAIN", "LOADING Redis is loading",
                "READONLY You can't write against a read only replica.", "MASTERDOWN", "BUSY Redis is busy"}) {
            assertTrue(RedisFailures.isPassingRefusal(wrapped(new RedisCommandExecutionException(passing))), passing);
        }
        assertFalse(RedisFailures.isPassingRefusal(wrapped(new RedisCommandExecutionException("WRONGTYPE Operation"))));
        assertFalse(RedisFailures.isPassingRefusal(wrapped(new RedisCommandExecutionException("NOPERM"))));
        assertFalse(RedisFailures.isPassingRefusal(wrapped(new RedisConnectionException("reset"))));
    }

    private static Throwable wrapped(Throwable cause) {
        return new CompletionException(new LockException("Redis call for lock 'x' failed", cause));
    }
}
