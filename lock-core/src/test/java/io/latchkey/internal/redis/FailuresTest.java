package io.latchkey.internal.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.PartitionSelectorException;
import io.lettuce.core.cluster.models.partitions.Partitions;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Reading a failure: whether its outcome is unknown, whether a later try can get past it, whether it is a timeout. */
class FailuresTest {

    private static final String LOCK = "orders:42";
    private static final Duration TIMEOUT = Duration.ofMillis(750);

    private static RuntimeException translate(Throwable failure) {
        return LockExceptions.translate(LOCK, TIMEOUT, failure);
    }

    @Test
    void onlyAnErrorReplyOrAnOwnershipVerdictMakesAnOutcomeKnown() {
        assertFalse(Failures.isOutcomeUnknown(LockExceptions.refused(LOCK, new RedisCommandExecutionException("OOM x"))));
        assertFalse(Failures.isOutcomeUnknown(new LockRefusedException("made by a caller", null)));
        assertFalse(Failures.isOutcomeUnknown(new CompletionException(LockExceptions.notHeld(LOCK, 7))));
        assertTrue(Failures.isOutcomeUnknown(LockExceptions.timedOut(LOCK, TIMEOUT, null)));
        assertTrue(Failures.isOutcomeUnknown(LockExceptions.unreachable(LOCK, new ClosedChannelException())));
        assertTrue(Failures.isOutcomeUnknown(new RedisException("Connection closed")));
    }

    @Test
    void aCallIsOfUnknownOutcomeUnlessRedisAnsweredIt() {
        assertTrue(Failures.isOutcomeUnknown(wrapped(new RedisCommandTimeoutException("timed out"))));
        assertTrue(Failures.isOutcomeUnknown(wrapped(new RedisConnectionException("reset"))));
        assertTrue(Failures.isOutcomeUnknown(wrapped(new RedisException("Connection disconnected"))));
        assertFalse(Failures.isOutcomeUnknown(wrapped(new RedisCommandExecutionException("WRONGTYPE"))));
        assertFalse(Failures.isOutcomeUnknown(new CompletionException(new IllegalMonitorStateException())));
    }

    @Test
    void aCommandRejectedUnsentNeedsNoSettlingButOneThatMetABrokenConnectionDoes() {
        LockException rejected = LockExceptions.unreachable(LOCK, new RedisException("Currently not connected. Commands are rejected."));
        assertTrue(Failures.isOutcomeUnknown(rejected), "a release rejected so is still owed");
        assertFalse(Failures.mayHaveRun(rejected));
        assertFalse(Failures.mayHaveRun(wrapped(new RedisException("Currently not connected. Commands are rejected."))));
        assertTrue(Failures.mayHaveRun(wrapped(new RedisException("Connection closed"))));
        assertTrue(Failures.mayHaveRun(LockExceptions.timedOut(LOCK, TIMEOUT, null)));
        assertTrue(Failures.mayHaveRun(LockExceptions.unreachable(LOCK, new ClosedChannelException())));
        assertFalse(Failures.mayHaveRun(wrapped(new RedisCommandExecutionException("LOADING Redis is loading"))));
    }

    /**
     * Found by the fault harness's Cluster run: mid-failover, Lettuce's view of the cluster had no
     * master for a slot, and waits that outlasted the failover threw this as a plain LockException
     * instead of trying again within the wait.
     */
    @Test
    void aSlotWithoutAMasterInTheClustersViewIsAConnectionFailureOfACallThatDidNotRun() {
        PartitionSelectorException noMaster = new PartitionSelectorException("Cannot determine a partition for slot 3625.", new Partitions());
        RuntimeException translated = translate(new CompletionException(noMaster));
        assertTrue(translated instanceof LockConnectionException, translated.toString());
        assertFalse(Failures.mayHaveRun(wrapped(noMaster)), "the command was never sent");
        assertTrue(Failures.isOutcomeUnknown(wrapped(noMaster)), "a release rejected so is still owed");
    }

    @Test
    void refusalsThatALaterTryCanGetPastAreTold() {
        for (String passing : new String[] {"CLUSTERDOWN The cluster is down", "TRYAGAIN", "LOADING Redis is loading",
                "READONLY You can't write against a read only replica.", "MASTERDOWN", "BUSY Redis is busy"}) {
            assertTrue(Failures.isPassingRefusal(wrapped(new RedisCommandExecutionException(passing))), passing);
            assertTrue(Failures.isPassingRefusal(translate(new RedisCommandExecutionException(passing))), passing);
        }
        assertFalse(Failures.isPassingRefusal(wrapped(new RedisCommandExecutionException("WRONGTYPE Operation"))));
        assertFalse(Failures.isPassingRefusal(wrapped(new RedisCommandExecutionException("NOPERM"))));
        assertFalse(Failures.isPassingRefusal(wrapped(new RedisCommandExecutionException("BUSYKEY Target key name already exists."))));
        assertFalse(Failures.isPassingRefusal(wrapped(new RedisCommandExecutionException("BUSYGROUP Consumer Group name already exists"))));
        assertFalse(Failures.isPassingRefusal(wrapped(new RedisCommandExecutionException("LOADINGX"))));
        assertFalse(Failures.isPassingRefusal(wrapped(new RedisConnectionException("reset"))));
    }

    private static Throwable wrapped(Throwable cause) {
        return new CompletionException(new LockException("Redis call for lock 'x' failed", cause));
    }

    @Test
    void aTimeoutIsRecognisedWhateverCarriesIt() {
        assertTrue(Failures.isTimeout(new CompletionException(new RedisCommandTimeoutException("late"))));
        assertTrue(Failures.isTimeout(LockExceptions.timedOut(LOCK, TIMEOUT, null)));
        assertFalse(Failures.isTimeout(LockExceptions.unreachable(LOCK, new ClosedChannelException())));
        assertFalse(Failures.isTimeout(LockExceptions.clientClosed()));
    }
}
