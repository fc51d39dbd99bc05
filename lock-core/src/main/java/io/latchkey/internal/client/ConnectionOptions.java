package io.latchkey.internal.client;

import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
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
import javax.net.ssl.SSLException;

/**
 * What every topology's connections share: the Lettuce options that bound each round trip and
 * fail commands at once while disconnected, TLS trust, and the translation of a failed connect
 * into a {@link LockException} that says what to fix.
 */
final class ConnectionOptions {

    /**
     * The least time a connection may take to open: TCP, TLS and authentication are several round
     * trips, and the first connection of a JVM also loads and warms up the network stack, which
     * on a busy machine takes longer than a short command timeout.
     */
    static final Duration MIN_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private static final int MAX_CAUSES = 50;

    private ConnectionOptions() {
    }

    /**
     * @param config the configuration
     * @return the bound on opening one connection: the command timeout, but at least {@link #MIN_CONNECT_TIMEOUT}
     */
    static Duration connectTimeout(LockConfig config) {
        Duration commandTimeout = config.commandTimeout();
        return commandTimeout.compareTo(MIN_CONNECT_TIMEOUT) > 0 ? commandTimeout : MIN_CONNECT_TIMEOUT;
    }

    /**
     * @param address a URI from the configuration
     * @param config the configuration
     * @return the URI with the connect timeout applied; Lettuce bounds the connection handshake
     *     and topology queries with it, while the command timeout bounds commands
     */
    static RedisURI uri(String address, LockConfig config) {
        RedisURI uri = RedisURI.create(address);
        uri.setTimeout(connectTimeout(config));
        return uri;
    }

    /**
     * Commands fail at once while disconnected rather than queue, so a caller never learns of an
     * acquire only after it gave up; every command is bounded by the command timeout.
     *
     * @param builder a standalone or cluster options builder
     * @param config the configuration
     * @param <B> the builder type
     * @return the same builder
     */
    static <B extends ClientOptions.Builder> B apply(B builder, LockConfig config) {
        builder.timeoutOptions(TimeoutOptions.enabled(config.commandTimeout()))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout(config)).build())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .autoReconnect(true);
        config.trustedCertificates().ifPresent(pem -> builder.sslOptions(SslOptions.builder()
                .jdkSslProvider()
                .trustManager(pem.toFile())
                .handshakeTimeout(connectTimeout(config))
                .build()));
        return builder;
    }

    /**
     * @param where the URI or URIs the client tried, without passwords
     * @param failure why connecting failed
     * @return a {@link LockException} naming the likely cause: refused credentials, an untrusted
     *     or mismatched certificate, a plain connection to a TLS port, or an unreachable server
     */
    static LockException connectFailure(String where, Throwable failure) {
        String hint = hint(failure, where.contains("rediss"));
        return new LockException("cannot connect to Redis at " + where + ": " + hint, failure);
    }

    private static String hint(Throwable failure, boolean tls) {
        for (Throwable cause : causesOf(failure)) {
            String message = String.valueOf(cause.getMessage());
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
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return failure.getMessage() + (root == failure ? "" : " (" + root.getMessage() + ")");
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
}
