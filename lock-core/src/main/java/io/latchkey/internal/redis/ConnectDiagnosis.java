package io.latchkey.internal.redis;

import static io.latchkey.internal.redis.Failures.describe;

import io.lettuce.core.RedisCommandExecutionException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertificateException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * Why a connect failed, read from the whole tree of causes the Redis client reports (the cluster
 * client hides each seed node's failure as a suppressed exception) and phrased as what to check:
 * refused credentials, a missing permission, an untrusted or mismatched certificate, a plain
 * connection to a TLS port. {@link LockExceptions#connectFailed} puts it in its message. Stateless.
 */
final class ConnectDiagnosis {

    private ConnectDiagnosis() {
    }

    /**
     * @param failure why connecting failed
     * @return true if Redis itself refused: an error reply among the causes (credentials, permission)
     */
    static boolean refusedByRedis(Throwable failure) {
        return causesOf(failure).stream().anyMatch(RedisCommandExecutionException.class::isInstance);
    }

    /**
     * @param failure why connecting failed
     * @return true if the server may have refused the login without the failure saying so: it
     *     names no refusal, and the server was reached (no refused or timed-out TCP connect, no
     *     unknown host, no TLS failure). Lettuce's handshake closes the channel before it reports
     *     a refusal, and the close, when it wins, shows as "Connection closed prematurely",
     *     "RedisHandshakeHandler not registered" or "Currently not connected", depending on when.
     */
    static boolean mayHideARefusal(Throwable failure) {
        return causesOf(failure).stream().noneMatch(cause -> cause instanceof RedisCommandExecutionException
                || cause instanceof ConnectException || cause instanceof UnknownHostException
                || cause instanceof NoRouteToHostException || cause instanceof SSLException
                || cause instanceof CertificateException);
    }

    /**
     * @param failure why connecting failed
     * @param tls whether the client spoke TLS
     * @return the likely cause of a failed connect, phrased as what to check
     */
    static String hint(Throwable failure, boolean tls) {
        List<Throwable> causes = causesOf(failure);
        // The server's own answer first: a close reported beside it (see closedBeforeAnswer) is its effect.
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
        }
        for (Throwable cause : causes) {
            String message = describe(cause);
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
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < Failures.MAX_CAUSES; depth++) {
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
        while (!pending.isEmpty() && found.size() < Failures.MAX_CAUSES) {
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
}
