package io.latchkey.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The one mapping from what Lettuce reports to what a caller catches, and the situations built on it. */
class LockExceptionsTest {

    private static final String LOCK = "orders:42";
    private static final Duration TIMEOUT = Duration.ofMillis(750);

    private static RuntimeException translate(Throwable failure) {
        return LockExceptions.translate(LOCK, TIMEOUT, failure);
    }

    /** Asserts the exact type, that the cause is kept, and that the message names the lock. */
    private static <T extends RuntimeException> T assertMapped(Class<T> type, Throwable failure, RuntimeException mapped) {
        assertEquals(type, mapped.getClass(), "mapped " + failure);
        assertSame(Failures.unwrap(failure), mapped.getCause(), "the cause is kept");
        assertTrue(mapped.getMessage().contains("'" + LOCK + "'"), "names the lock: " + mapped.getMessage());
        return type.cast(mapped);
    }

    @Test
    void aCommandTimeoutBecomesLockTimeoutExceptionNamingTheTimeout() {
        RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("Command timed out after 750 millisecond(s)");
        LockTimeoutException mapped = assertMapped(LockTimeoutException.class, timeout, translate(timeout));
        assertTrue(mapped.getMessage().contains(TIMEOUT.toString()), mapped.getMessage());
        assertTrue(mapped.getMessage().contains("may still run"), mapped.getMessage());
    }

    @Test
    void aTimeoutInsideACompletionExceptionIsUnwrappedFirst() {
        CompletionException wrapped = new CompletionException(new RedisCommandTimeoutException("timed out"));
        assertMapped(LockTimeoutException.class, wrapped, translate(wrapped));
        ExecutionException executionWrapped = new ExecutionException(new RedisCommandTimeoutException("timed out"));
        assertMapped(LockTimeoutException.class, executionWrapped, translate(executionWrapped));
    }

    @Test
    void aConnectionFailureBecomesLockConnectionException() {
        RedisConnectionException refused = new RedisConnectionException("Unable to connect to 127.0.0.1:6379",
                new IOException("Connection refused"));
        assertMapped(LockConnectionException.class, refused, translate(refused));
    }

    @Test
    void aCommandRejectedWhileDisconnectedBecomesLockConnectionException() {
        for (String lettuceSays : new String[] {"Currently not connected. Commands are rejected.", "Connection closed",
                "Connection disconnected"}) {
            RedisException rejected = new RedisException(lettuceSays);
            assertMapped(LockConnectionException.class, rejected, translate(rejected));
        }
    }

    @Test
    void aClosedChannelOrAResetBecomesLockConnectionException() {
        ClosedChannelException closed = new ClosedChannelException();
        assertMapped(LockConnectionException.class, closed, translate(closed));
        RedisException reset = new RedisException(new IOException("Connection reset by peer"));
        assertMapped(LockConnectionException.class, reset, translate(reset));
        CompletionException wrapped = new CompletionException(new ClosedChannelException());
        assertMapped(LockConnectionException.class, wrapped, translate(wrapped));
    }

    @Test
    void anErrorReplyBecomesLockRefusedExceptionQuotingIt() {
        for (String reply : new String[] {"WRONGTYPE Operation against a key holding the wrong kind of value",
                "NOPERM User reader has no permissions to run the 'evalsha' command",
                "READONLY You can't write against a read only replica.", "OOM command not allowed when used memory > 'maxmemory'.",
                "CROSSSLOT Keys in request don't hash to the same slot",
                "ERR user_script:1: Script attempted to access nonexistent global variable"}) {
            RedisCommandExecutionException error = new RedisCommandExecutionException(reply);
            LockRefusedException mapped = assertMapped(LockRefusedException.class, error, translate(error));
            assertTrue(mapped.getMessage().contains(reply), mapped.getMessage());
        }
        RedisNoScriptException noScript = new RedisNoScriptException("NOSCRIPT No matching script.");
        assertMapped(LockRefusedException.class, noScript, translate(noScript));
    }

    @Test
    void aCommandOnAClosedConnectionSaysTheClientIsClosed() {
        RedisException closed = new RedisException("Connection is closed");
        RuntimeException mapped = translate(closed);
        assertEquals(LockException.class, mapped.getClass());
        assertSame(closed, mapped.getCause());
        assertTrue(mapped.getMessage().contains("closed"), mapped.getMessage());
    }

    @Test
    void anythingElseBecomesAPlainLockExceptionNamingTheLock() {
        IllegalStateException odd = new IllegalStateException("odd");
        assertMapped(LockException.class, odd, translate(odd));
        RedisException unknown = new RedisException("Internal stack size exceeded: 10. Commands are not accepted");
        assertMapped(LockException.class, unknown, translate(unknown));
    }

    @Test
    void lockSemanticsPassUnchanged() {
        IllegalMonitorStateException notHeld = LockExceptions.notHeld(LOCK, 7);
        CancellationException cancelled = new CancellationException();
        LockException already = LockExceptions.unreachable(LOCK, new ClosedChannelException());
        for (RuntimeException failure : new RuntimeException[] {notHeld, cancelled, already}) {
            assertSame(failure, translate(failure));
            assertSame(failure, translate(new CompletionException(failure)), "unwrapped, then passed");
        }
    }

    @Test
    void notHeldNamesTheLockAndTheOwner() {
        IllegalMonitorStateException notHeld = LockExceptions.notHeld(LOCK, 7);
        assertTrue(notHeld.getMessage().contains("'" + LOCK + "'") && notHeld.getMessage().contains("owner 7"),
                notHeld.getMessage());
    }

    @Test
    void aDeferredReleaseTakesTheTypeOfItsCauseAndSaysNotToRetry() {
        LockException timedOut = LockExceptions.timedOut(LOCK, TIMEOUT, new RedisCommandTimeoutException("late"));
        LockException lost = LockExceptions.releaseDeferred(LOCK, 7, new CompletionException(timedOut));
        assertEquals(LockTimeoutException.class, lost.getClass());
        assertSame(timedOut, lost.getCause());
        assertTrue(lost.getMessage().contains("need not retry"), lost.getMessage());

        LockException down = LockExceptions.unreachable(LOCK, new RedisException("Currently not connected. Commands are rejected."));
        assertEquals(LockConnectionException.class, LockExceptions.releaseDeferred(LOCK, 7, down).getClass());
        LockException readOnly = LockExceptions.refused(LOCK, new RedisCommandExecutionException("READONLY replica"));
        assertEquals(LockRefusedException.class, LockExceptions.releaseDeferred(LOCK, 7, readOnly).getClass());
    }

    @Test
    void aCallThatWaitsForAnUnsettledOneSaysSoAndIsTypedAsTheCause() {
        LockException down = LockExceptions.unreachable(LOCK, new ClosedChannelException());
        LockException settling = LockExceptions.settleFailed("release 1", "hold", new CompletionException(down));
        assertEquals(LockConnectionException.class, settling.getClass());
        assertSame(down, settling.getCause());
        assertTrue(settling.getMessage().contains("cannot settle release 1 of hold"), settling.getMessage());
        LockException raw = LockExceptions.settleFailed("release 1", "hold", new RedisCommandTimeoutException("late"));
        assertEquals(LockTimeoutException.class, raw.getClass());
    }

    @Test
    void aFailedSubscriptionIsTypedAsItsCause() {
        LockException timedOut = LockExceptions.subscribeFailed("latchkey:{a}:channel", new CompletionException(
                new RedisCommandTimeoutException("late")));
        assertEquals(LockTimeoutException.class, timedOut.getClass());
        assertTrue(timedOut.getMessage().contains("latchkey:{a}:channel"), timedOut.getMessage());
        assertEquals(LockConnectionException.class, LockExceptions.subscribeFailed("c",
                new RedisException("Currently not connected. Commands are rejected.")).getClass());
    }

    @Test
    void aConnectRefusedByRedisIsLockRefusedExceptionAndAnyOtherIsLockConnectionException() {
        String secret = "s3cr:t@/x";
        String where = "redis://user:" + secret + "@127.0.0.1:6390/0";
        RedisConnectionException wrongPassword = new RedisConnectionException("Unable to connect to 127.0.0.1:6390",
                new RedisCommandExecutionException("WRONGPASS invalid username-password pair or user is disabled."));
        LockException refused = LockExceptions.connectFailed(where, wrongPassword);
        assertEquals(LockRefusedException.class, refused.getClass());
        assertTrue(refused.getMessage().contains("refused the credentials"), refused.getMessage());
        assertFalse(refused.getMessage().contains("s3cr"), "no password: " + refused.getMessage());
        assertTrue(refused.getMessage().contains("redis://***@127.0.0.1:6390/0"), refused.getMessage());

        LockException down = LockExceptions.connectFailed(where, new RedisConnectionException("Unable to connect to 127.0.0.1:6390",
                new IOException("Connection refused")));
        assertEquals(LockConnectionException.class, down.getClass());
        assertTrue(down.getMessage().contains("Connection refused"), "names the root cause: " + down.getMessage());

        LockException tls = LockExceptions.connectFailed("rediss://h:6380", new RedisConnectionException("Unable to connect",
                new SSLHandshakeException("PKIX path building failed")));
        assertEquals(LockConnectionException.class, tls.getClass());
        assertTrue(tls.getMessage().contains("TLS handshake failed"), tls.getMessage());

        LockException plainToTls = LockExceptions.connectFailed("redis://h:6380", new RedisConnectionException("Unable to connect",
                new ClosedChannelException()));
        assertTrue(plainToTls.getMessage().contains("rediss://"), "suggests TLS: " + plainToTls.getMessage());
    }

    /**
     * The shape Lettuce's Cluster client gave about once in 70 to 130 wrong-password connects: its
     * handshake closed the channel before it completed with WRONGPASS, and the close won. The
     * refusal that {@code LoginProbe} then adds as a suppressed exception decides, though the
     * close comes first among the causes.
     */
    @Test
    void aRefusalFoundBesideAPrematureCloseIsARefusal() {
        RedisConnectionException closed = new RedisConnectionException("Unable to establish a connection to Redis Cluster",
                new RedisException("Cannot retrieve cluster partitions from [redis://u:*****@127.0.0.1:7000]\n\nDetails:\n"
                        + "\t[redis://u:*****@127.0.0.1:7000]: Unable to connect to [127.0.0.1:7000]: Connection closed prematurely"));
        closed.getCause().addSuppressed(new RedisConnectionException("Unable to connect to [127.0.0.1:7000]: Connection closed prematurely",
                new RedisConnectionException("Connection closed prematurely")));
        assertTrue(LockExceptions.mayHideARefusal(closed), "the probe asks the server");
        assertEquals(LockConnectionException.class, LockExceptions.connectFailed("redis://u:p@127.0.0.1:7000", closed).getClass());

        closed.addSuppressed(new RedisCommandExecutionException("WRONGPASS invalid username-password pair or user is disabled."));
        LockException refused = LockExceptions.connectFailed("redis://u:p@127.0.0.1:7000", closed);
        assertEquals(LockRefusedException.class, refused.getClass());
        assertTrue(refused.getMessage().contains("refused the credentials"), refused.getMessage());

        assertFalse(LockExceptions.mayHideARefusal(closed), "the refusal is known");

        assertFalse(LockExceptions.mayHideARefusal(new RedisConnectionException("Unable to connect",
                new java.net.ConnectException("Connection refused"))), "no server reached: nothing to ask");
        assertFalse(LockExceptions.mayHideARefusal(new RedisConnectionException("Unable to connect",
                new SSLHandshakeException("PKIX path building failed"))), "the TLS handshake failed before any login");
        assertTrue(LockExceptions.mayHideARefusal(new RedisConnectionException("Unable to connect to [127.0.0.1:7000]: "
                + "RedisHandshakeHandler not registered")), "another shape of the same race");
        assertTrue(LockExceptions.mayHideARefusal(new RedisException("Currently not connected. Commands are rejected.")));
    }

    @Test
    void aUriQuotedByACauseShowsNoPassword() {
        RedisConnectionException quoting = new RedisConnectionException("Cannot connect Redis Sentinel at redis://:hunter2@s1:26379");
        for (LockException mapped : new LockException[] {
                (LockException) translate(quoting),
                LockExceptions.connectFailed("redis-sentinel://:hunter2@s1:26379/0#mymaster", quoting)}) {
            assertFalse(mapped.getMessage().contains("hunter2"), "no password: " + mapped.getMessage());
            assertTrue(mapped.getMessage().contains("s1:26379"), mapped.getMessage());
        }
    }

    @Test
    void onTheCallersThreadEveryTypeIsKeptInANewException() {
        LockException[] originals = {
            LockExceptions.timedOut(LOCK, TIMEOUT, new RedisCommandTimeoutException("late")),
            LockExceptions.unreachable(LOCK, new ClosedChannelException()),
            LockExceptions.refused(LOCK, new RedisCommandExecutionException("WRONGTYPE x")),
            LockExceptions.clientClosed(),
        };
        for (LockException original : originals) {
            RuntimeException here = LockExceptions.onCallerThread(LOCK, new ExecutionException(original));
            assertEquals(original.getClass(), here.getClass());
            assertNotSame(original, here);
            assertSame(original, here.getCause());
            assertEquals(original.getMessage(), here.getMessage());
        }
        IllegalMonitorStateException notHeld = LockExceptions.notHeld(LOCK, 7);
        RuntimeException here = LockExceptions.onCallerThread(LOCK, new CompletionException(notHeld));
        assertEquals(IllegalMonitorStateException.class, here.getClass());
        assertSame(notHeld, here.getCause());
    }

    @Test
    void onTheCallersThreadOtherFailuresAreLeftAsTheyAreOrTyped() {
        LockException foreign = new LockException("a subclass of the caller's own") { };
        assertSame(foreign, LockExceptions.onCallerThread(LOCK, foreign));
        CancellationException cancelled = new CancellationException();
        assertSame(cancelled, LockExceptions.onCallerThread(LOCK, cancelled));
        RuntimeException checked = LockExceptions.onCallerThread(LOCK, new TimeoutException("late"));
        assertEquals(LockTimeoutException.class, checked.getClass());
        RuntimeException other = LockExceptions.onCallerThread(LOCK, new Exception("odd"));
        assertEquals(LockException.class, other.getClass());
        assertTrue(other.getMessage().contains("'" + LOCK + "'"), other.getMessage());
    }
}
