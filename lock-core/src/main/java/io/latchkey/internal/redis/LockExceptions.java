package io.latchkey.internal.redis;

import io.latchkey.LockConnectionException;
import io.latchkey.LeaseLostException;
import io.latchkey.LockException;
import io.latchkey.LockRefusedException;
import io.latchkey.LockTimeoutException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * The one place that builds the {@link LockException}s and {@link IllegalMonitorStateException}s
 * the library throws, as Lettuce's {@code ExceptionFactory} is for Lettuce: one method per
 * situation, named after it, and one mapping from what the Redis client reports to the type a
 * caller can act on:
 *
 * <table>
 * <caption>What a failure becomes</caption>
 * <tr><th>the Redis client reports</th><th>the caller sees</th></tr>
 * <tr><td>{@code RedisCommandTimeoutException}, {@code TimeoutException}</td>
 *     <td>{@link LockTimeoutException}</td></tr>
 * <tr><td>{@code RedisConnectionException}, an {@code IOException} (reset, closed channel),
 *     {@code RedisException} "Currently not connected", "Connection closed", "Connection
 *     disconnected"</td><td>{@link LockConnectionException}</td></tr>
 * <tr><td>{@code RedisCommandExecutionException}: an error reply</td><td>{@link LockRefusedException}</td></tr>
 * <tr><td>{@code RedisException} "Connection is closed": the client's own {@code close()}</td>
 *     <td>{@link LockException}: the client is closed</td></tr>
 * <tr><td>a {@code LockException}, an {@code IllegalMonitorStateException}, a
 *     {@code CancellationException}</td><td>the same exception, unchanged</td></tr>
 * <tr><td>anything else</td><td>{@link LockException}</td></tr>
 * </table>
 *
 * <p>A situation that wraps an earlier failure (a release that did not complete, a RedLock quorum
 * that was not reached) takes that failure's type. Messages name the lock and never show a
 * password: text that did not come from here passes through {@link Redaction}. Stateless.
 */
public final class LockExceptions {

    /** What a failure means to the caller; each is one exception type. */
    enum Kind {
        /** Redis did not answer in time: {@link LockTimeoutException}. */
        TIMEOUT,
        /** Redis could not be reached: {@link LockConnectionException}. */
        CONNECTION,
        /** Redis answered with an error: {@link LockRefusedException}. */
        REFUSED,
        /** The client was closed under the call: a plain {@link LockException}. */
        CLOSED,
        /** Anything else: a plain {@link LockException}. */
        OTHER
    }

    private static final String CLIENT_CLOSED = "the LockClient is closed";
    /** Error replies that say "not now" rather than "no": the same call sent later can succeed. */
    private static final List<String> PASSING_REFUSALS =
            List.of("CLUSTERDOWN", "TRYAGAIN", "LOADING", "READONLY", "MASTERDOWN", "BUSY");
    /** A failure's causes are followed this deep at most, in case a chain loops. */
    private static final int MAX_CAUSES = 50;

    private LockExceptions() {
    }

    // ---- failures of Redis calls -------------------------------------------------------------

    /**
     * Maps the failure of one Redis call as the table above says.
     *
     * @param lock the lock the call was for
     * @param commandTimeout the bound the call ran under, for the message
     * @param failure what the Redis client reported, wrapped in a {@link CompletionException} or not
     * @return the exception the caller sees; exceptions that already carry lock semantics (a
     *     {@link LockException}, an {@link IllegalMonitorStateException}, a
     *     {@link CancellationException}) pass unchanged
     */
    public static RuntimeException translate(String lock, Duration commandTimeout, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LockException || cause instanceof IllegalMonitorStateException
                || cause instanceof CancellationException) {
            return (RuntimeException) cause;
        }
        return switch (kindOf(cause)) {
            case TIMEOUT -> timedOut(lock, commandTimeout, cause);
            case CONNECTION -> unreachable(lock, cause);
            case REFUSED -> refused(lock, cause);
            case CLOSED -> clientClosed(cause);
            case OTHER -> new LockException("Redis call for lock '" + lock + "' failed: " + describe(cause), cause);
        };
    }

    /**
     * @param lock the lock the call was for
     * @param timeout the time Redis had to answer
     * @param cause the timeout as the Redis client reported it, or null
     * @return Redis did not answer in time; the call may still run
     */
    public static LockTimeoutException timedOut(String lock, Duration timeout, Throwable cause) {
        return new LockTimeoutException("Redis did not answer within " + timeout + " for lock '" + lock
                + "'; the call may still run", cause);
    }

    /**
     * @param lock the lock the call was for
     * @param cause why Redis cannot be reached
     * @return Redis is unreachable: not connected, or the connection was lost
     */
    public static LockConnectionException unreachable(String lock, Throwable cause) {
        return new LockConnectionException("Redis is unreachable for lock '" + lock + "': " + describe(cause), cause);
    }

    /**
     * @param lock the lock the call was for
     * @param cause Redis's error reply
     * @return Redis answered the call with an error
     */
    public static LockRefusedException refused(String lock, Throwable cause) {
        return new LockRefusedException("Redis refused the call for lock '" + lock + "': " + describe(cause), cause);
    }

    /** @return a call was made on, or waited on, a closed client */
    public static LockException clientClosed() {
        return new LockException(CLIENT_CLOSED);
    }

    /**
     * @param cause how the call learned that the client is closed
     * @return a call was made on a closed client
     */
    public static LockException clientClosed(Throwable cause) {
        return new LockException(CLIENT_CLOSED, cause);
    }

    /** @return a wait was pending when its client was closed */
    public static LockException closedWhileWaiting() {
        return new LockException("the LockClient was closed while waiting");
    }

    /**
     * @param channel the unlock channel
     * @param cause why the subscription failed, as the Redis client reported it
     * @return the subscription that a waiter needs failed; typed as {@link #translate} types it
     */
    public static LockException subscribeFailed(String channel, Throwable cause) {
        Throwable unwrapped = unwrap(cause);
        return ofKind(kindOf(unwrapped), "cannot subscribe to " + channel + ": " + describe(unwrapped), unwrapped);
    }

    // ---- ownership and unknown outcomes ------------------------------------------------------

    /**
     * @param lock the lock's name
     * @param owner the owner that tried to release it
     * @return the owner holds no hold of the lock; nothing changed
     */
    public static IllegalMonitorStateException notHeld(String lock, long owner) {
        return new IllegalMonitorStateException("lock '" + lock + "' is not held by owner " + owner + " of this client");
    }

    /**
     * @param redLock the RedLock's name
     * @param owner the owner that tried to release it
     * @param notHeld how many masters said the owner holds nothing there
     * @param masters how many masters there are
     * @return too many masters say the owner holds nothing for a majority to release it
     */
    public static IllegalMonitorStateException notHeldByMajority(String redLock, long owner, int notHeld, int masters) {
        return new IllegalMonitorStateException("RedLock '" + redLock + "' is not held by owner " + owner
                + " of this client: " + notHeld + " of " + masters + " masters do not hold it");
    }

    /**
     * @param lock the read-write lock's name
     * @return what an owner that holds only the read lock gets when it asks for the write lock:
     *     it would wait for its own read hold to end, for ever
     */
    public static IllegalMonitorStateException upgradeRefused(String lock) {
        return new IllegalMonitorStateException("the write lock of read-write lock '" + lock + "' was asked for by an "
                + "owner that holds its read lock and not its write lock: an upgrade would wait for itself, so it is "
                + "refused; release the read lock first (the other way round works: a writer may take the read lock, then "
                + "release the write lock)");
    }

    /**
     * @param lock the lock's name
     * @param owner the owner that released it
     * @param cause why the release did not complete: its answer was lost, or Redis refused it for
     *     a passing reason ({@link #isPassingRefusal})
     * @return the release did not complete now and is completed by the library once Redis takes
     *     it; the caller must not retry. Typed as the cause
     */
    public static LockException releaseDeferred(String lock, long owner, Throwable cause) {
        Throwable unwrapped = unwrap(cause);
        return ofKind(kindOf(unwrapped), "unlock of lock '" + lock + "' by owner " + owner + " did not complete ("
                + describe(unwrapped) + "); its lease is no longer renewed, and the release is completed as soon as "
                + "Redis answers again: the caller need not retry", unwrapped);
    }

    /**
     * @param lock the lock's name
     * @param asked how many replicas were asked to acknowledge the grant
     * @param acknowledged how many did, or -1 if WAIT's answer was lost
     * @param timeout how long they were given
     * @param cause why WAIT's answer was lost, or null
     * @return an acquisition that fewer replicas than asked acknowledged, and that was therefore
     *     given back: the lock is not held
     */
    public static LockException notAcknowledged(String lock, int asked, long acknowledged, Duration timeout, Throwable cause) {
        String how = acknowledged < 0 ? "the answer of WAIT was lost (" + describe(unwrap(cause)) + ")"
                : "only " + acknowledged + " of " + asked + " replicas acknowledged it within " + timeout;
        return new LockException("lock '" + lock + "' was granted but " + how
                + ", so the grant was released (replicaAcknowledgement with ReplicaShortfall.FAIL)",
                cause == null ? null : unwrap(cause));
    }

    /**
     * @param lock the lock's name
     * @param owner the owner
     * @return what closing a handle throws when its hold was already released by unlocks
     */
    public static IllegalMonitorStateException holdAlreadyReleased(String lock, long owner) {
        return new IllegalMonitorStateException("the hold of lock '" + lock + "' by owner " + owner
                + " was already released by unlock()");
    }

    /**
     * @param lock the lock's name
     * @param owner the owner whose lease was lost
     * @param how how it was lost
     * @return what an unlock, a close or a re-entry of a hold whose lease was lost throws
     */
    public static LeaseLostException leaseLost(String lock, long owner, String how) {
        return new LeaseLostException("the lease of lock '" + lock + "' held by owner " + owner + " was lost ("
                + how + "): another owner may have held the lock since, so what this owner did after that was not "
                + "protected by it; the hold is over");
    }

    /**
     * @param what the call being settled, for example {@code "release 3f"}
     * @param hold the hold it belongs to
     * @param cause why settling failed this time
     * @return what a later call of the same owner on the same lock fails with, unsent, while an
     *     earlier call of it cannot be settled; typed as the cause
     */
    public static LockException settleFailed(String what, Object hold, Throwable cause) {
        Throwable unwrapped = unwrap(cause);
        return ofKind(kindOf(unwrapped), "cannot settle " + what + " of " + hold + ": " + describe(unwrapped), unwrapped);
    }

    // ---- connecting --------------------------------------------------------------------------

    /**
     * @param where the URI or URIs the client tried, as the configuration gave them (they are
     *     redacted here)
     * @param cause why connecting failed
     * @return a {@link LockRefusedException} if Redis refused the credentials or a permission,
     *     else a {@link LockConnectionException}; the message names the likely cause: refused
     *     credentials, an untrusted or mismatched certificate, a plain connection to a TLS port,
     *     or an unreachable server
     */
    public static LockException connectFailed(String where, Throwable cause) {
        String shown = Redaction.inText(where);
        List<Throwable> causes = causesOf(cause);
        String message = "cannot connect to Redis at " + shown + ": " + hint(cause, causes, shown.contains("rediss"));
        boolean refused = causes.stream().anyMatch(RedisCommandExecutionException.class::isInstance);
        return refused ? new LockRefusedException(message, cause) : new LockConnectionException(message, cause);
    }

    /** @return the likely cause of a failed connect, phrased as what to check */
    private static String hint(Throwable failure, List<Throwable> causes, boolean tls) {
        for (Throwable cause : causes) {
            String message = describe(cause);
            if (cause instanceof RedisCommandExecutionException) {
                String upper = message.toUpperCase(Locale.ROOT);
                if (upper.startsWith("WRONGPASS") || upper.startsWith("NOAUTH") || upper.contains("INVALID PASSWORD")) {
                    return "Redis refused the credentials (" + message + "); check the user and password in the URI";
                }
                if (upper.startsWith("NOPERM")) {
                    return "the Redis user lacks a permission (" + message + ")";
                }
            }
            if (cause instanceof CertificateException || cause instanceof SSLException) {
                return "the TLS handshake failed (" + message + "); is the server's certificate signed by a CA in "
                        + "LockConfig.trustedCertificates (or the JVM trust store), and does it name this host?";
            }
            if (!tls && (cause instanceof ClosedChannelException || message.contains("Connection closed prematurely")
                    || message.contains("Connection reset"))) {
                return "the server closed the connection before it answered (" + message
                        + "); if that port only speaks TLS, use a rediss:// URI";
            }
        }
        Throwable root = failure;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < MAX_CAUSES; depth++) {
            root = root.getCause();
        }
        return describe(failure) + (root == failure ? "" : " (" + describe(root) + ")");
    }

    /**
     * @return the failure, its causes and the exceptions suppressed along the way (the cluster
     *     client reports each seed node's failure as a suppressed exception), outermost first
     */
    private static List<Throwable> causesOf(Throwable failure) {
        List<Throwable> found = new ArrayList<>();
        Deque<Throwable> pending = new ArrayDeque<>(List.of(failure));
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!pending.isEmpty() && found.size() < MAX_CAUSES) {
            Throwable next = pending.removeFirst();
            if (seen.add(next)) {
                found.add(next);
                if (next.getCause() != null) {
                    pending.addLast(next.getCause());
                }
                pending.addAll(List.of(next.getSuppressed()));
            }
        }
        return found;
    }

    // ---- RedLock -----------------------------------------------------------------------------

    /**
     * @param master the master, as {@link Redaction} shows it
     * @param why why its last connect failed, or null if none was tried yet
     * @return the RedLock master is not connected yet; typed as {@code why}, a
     *     {@link LockConnectionException} unless Redis refused the connection
     */
    public static LockException masterNotConnected(String master, LockException why) {
        String message = "RedLock master " + master + " is not connected; the client keeps trying in the background"
                + (why == null ? "" : ": " + why.getMessage());
        return why instanceof LockRefusedException ? new LockRefusedException(message, why)
                : new LockConnectionException(message, why);
    }

    /**
     * @param master the master, as {@link Redaction} shows it
     * @param cause what connecting threw that is not a {@link LockException}
     * @return connecting to a RedLock master failed unexpectedly; typed as the cause
     */
    public static LockException masterConnectFailed(String master, Throwable cause) {
        return ofKind(kindOf(cause), "cannot connect to RedLock master " + master + ": " + describe(cause), cause);
    }

    /**
     * @param master the master, as {@link Redaction} shows it
     * @param attemptTimeout the bound on its answer to one acquire
     * @return the master did not answer an acquire within its attempt timeout. Without a cause:
     *     the master's late answer is handled where it arrives
     */
    public static LockTimeoutException masterTimedOut(String master, Duration attemptTimeout) {
        return new LockTimeoutException(master + " did not answer within " + attemptTimeout, null);
    }

    /**
     * @param master the master, as {@link Redaction} shows it
     * @param timeout the master's own command timeout failure
     * @return the master's client timed the acquire out; without a cause, as
     *     {@link #masterTimedOut(String, Duration)}
     */
    public static LockTimeoutException masterTimedOut(String master, Throwable timeout) {
        return new LockTimeoutException(master + ": " + describe(unwrap(timeout)), null);
    }

    /**
     * @param redLock the RedLock's name
     * @param answered how many masters answered the acquire in time
     * @param masters how many masters there are
     * @param majority how many answers are needed
     * @param cause the first failure that counts, or null
     * @return fewer than a majority of masters answered an acquire within their attempt timeout;
     *     typed as the cause
     */
    public static LockException quorumNotReachedInTime(String redLock, int answered, int masters, int majority,
                                                       Throwable cause) {
        return ofKind(kindOf(cause), "RedLock '" + redLock + "': only " + answered + " of " + masters
                + " masters answered within their attempt timeout; a majority of " + majority + " is needed"
                + (cause == null ? "" : ": " + describe(cause)), cause);
    }

    /**
     * @param redLock the RedLock's name
     * @param answered how many masters answered a query
     * @param masters how many masters there are
     * @param majority how many answers are needed
     * @param cause the first failure, or null
     * @return fewer than a majority of masters answered; typed as the cause
     */
    public static LockException quorumNotReached(String redLock, int answered, int masters, int majority, Throwable cause) {
        return ofKind(kindOf(cause), "RedLock '" + redLock + "': only " + answered + " of " + masters
                + " masters answered; a majority of " + majority + " is needed"
                + (cause == null ? "" : ": " + describe(cause)), cause);
    }

    /**
     * @param redLock the RedLock's name
     * @param released how many masters released the owner's hold
     * @param failed how many masters failed to answer the release
     * @param masters how many masters there are
     * @param majority how many releases are needed
     * @param cause the first failure
     * @return fewer than a majority of masters released it; typed as the cause
     */
    public static LockException releaseQuorumNotReached(String redLock, int released, int failed, int masters,
                                                        int majority, Throwable cause) {
        return ofKind(kindOf(cause), "RedLock '" + redLock + "': only " + released + " of " + masters
                + " masters released it and " + failed + " failed; a majority of " + majority + " is needed: "
                + describe(cause), cause);
    }

    /**
     * @param reachable how many masters could be connected
     * @param masters how many masters are configured
     * @param majority how many are needed
     * @param first why the first unreachable master could not be connected
     * @return too few RedLock masters can be reached to open a client's RedLocks; typed as {@code first}
     */
    public static LockException mastersUnreachable(int reachable, int masters, int majority, LockException first) {
        return ofKind(kindOf(first), "only " + reachable + " of " + masters + " RedLock masters can be reached, a majority of "
                + majority + " is needed: " + describe(first), first);
    }

    // ---- on the caller's thread --------------------------------------------------------------

    /**
     * The same failure again, made on the calling thread so that its stack trace shows where the
     * caller was, with the original as its cause and of the same type.
     *
     * @param lock the lock the call was for
     * @param failure how the call's future failed; not an {@link Error}, which the caller rethrows
     * @return a {@link LeaseLostException}, {@link IllegalMonitorStateException} or {@link LockException} of the failure's
     *     exact type, made here; another unchecked exception unchanged (also a subclass of
     *     {@code LockException} that is not the library's); a checked one as a {@link LockException}
     */
    public static RuntimeException onCallerThread(String lock, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LeaseLostException) {
            LeaseLostException here = new LeaseLostException(cause.getMessage());
            here.initCause(cause);
            return here;
        }
        if (cause instanceof IllegalMonitorStateException) {
            IllegalMonitorStateException here = new IllegalMonitorStateException(cause.getMessage());
            here.initCause(cause);
            return here;
        }
        if (cause instanceof LockException) {
            Class<?> type = cause.getClass();
            if (type == LockTimeoutException.class) {
                return new LockTimeoutException(cause.getMessage(), cause);
            } else if (type == LockConnectionException.class) {
                return new LockConnectionException(cause.getMessage(), cause);
            } else if (type == LockRefusedException.class) {
                return new LockRefusedException(cause.getMessage(), cause);
            } else if (type == LockException.class) {
                return new LockException(cause.getMessage(), cause);
            }
            return (LockException) cause;
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return ofKind(kindOf(cause), "lock '" + lock + "' failed: " + describe(cause), cause);
    }

    // ---- reading failures --------------------------------------------------------------------

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis did not answer in time: the command may still run later
     */
    public static boolean isTimeout(Throwable failure) {
        return kindOf(unwrap(failure)) == Kind.TIMEOUT;
    }

    /**
     * @param failure a failure as a future reports it
     * @return true unless Redis answered the call (an error reply, or an ownership verdict):
     *     after a reset, closed or timed-out connection, or a command rejected or cancelled around
     *     a disconnect, the call may or may not have run, and only Redis can tell later
     */
    public static boolean isOutcomeUnknown(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException || cause instanceof LockRefusedException
                    || cause instanceof IllegalMonitorStateException || cause instanceof NotSent) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param failure a failure as a future reports it
     * @return true if Redis refused the call for a passing reason and did not run it: a Cluster
     *     slot without a master during a failover ({@code CLUSTERDOWN}), a slot in migration
     *     ({@code TRYAGAIN}), a server loading its data ({@code LOADING}), a replica that is not
     *     (yet) the master ({@code READONLY}, {@code MASTERDOWN}), a script running too long
     *     ({@code BUSY}); the same call sent later can succeed
     */
    public static boolean isPassingRefusal(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException) {
                String message = String.valueOf(cause.getMessage());
                return PASSING_REFUSALS.stream().anyMatch(message::startsWith);
            }
        }
        return false;
    }

    /**
     * @param failure a failure as a future reports it
     * @return the failure without the {@link CompletionException} or {@link ExecutionException} wrapper
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * @param failure an unwrapped failure, or null
     * @return what it means to the caller: the first failure along its causes that tells
     */
    static Kind kindOf(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < MAX_CAUSES; cause = cause.getCause()) {
            if (cause instanceof LockTimeoutException || cause instanceof RedisCommandTimeoutException
                    || cause instanceof TimeoutException) {
                return Kind.TIMEOUT;
            }
            if (cause instanceof LockRefusedException || cause instanceof RedisCommandExecutionException) {
                return Kind.REFUSED;
            }
            if (cause instanceof LockConnectionException || cause instanceof RedisConnectionException
                    || cause instanceof IOException) {
                return Kind.CONNECTION;
            }
            if (cause instanceof NotSent) {
                return Kind.CLOSED;
            }
            if (cause.getClass() == RedisException.class) {
                String message = String.valueOf(cause.getMessage());
                // Lettuce's words for a command that met a closed endpoint, or a connection that is down.
                if (message.startsWith("Connection is closed")) {
                    return Kind.CLOSED;
                }
                if (message.startsWith("Currently not connected") || message.startsWith("Connection closed")
                        || message.startsWith("Connection disconnected")) {
                    return Kind.CONNECTION;
                }
            }
        }
        return Kind.OTHER;
    }

    private static LockException ofKind(Kind kind, String message, Throwable cause) {
        return switch (kind) {
            case TIMEOUT -> new LockTimeoutException(message, cause);
            case CONNECTION -> new LockConnectionException(message, cause);
            case REFUSED -> new LockRefusedException(message, cause);
            case CLOSED, OTHER -> new LockException(message, cause);
        };
    }

    /** @return the failure's message, or its type if it has none, with any URI's credentials masked */
    private static String describe(Throwable failure) {
        if (failure == null) {
            return "null";
        }
        String message = failure.getMessage();
        return Redaction.inText(message == null ? failure.getClass().getSimpleName() : message);
    }

    /**
     * A command that never left the client: the connection would not even take it (Lettuce
     * throws when its timer has stopped, as the client closes). Its outcome is known: it did not run.
     */
    static final class NotSent extends RuntimeException {

        private static final long serialVersionUID = 1L;

        NotSent(Throwable cause) {
            super("the command was not sent: " + cause.getMessage(), cause);
        }
    }
}
