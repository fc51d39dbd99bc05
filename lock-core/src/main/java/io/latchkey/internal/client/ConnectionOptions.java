package io.latchkey.internal.client;

import io.latchkey.LockConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.latchkey.internal.redis.Redaction;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every topology's connections share: the Lettuce options that bound each round trip and
 * fail commands at once while disconnected, and TLS trust. A failed connect becomes an exception
 * in {@link io.latchkey.internal.redis.LockExceptions#connectFailed}.
 */
final class ConnectionOptions {

    private static final Logger log = LoggerFactory.getLogger(ConnectionOptions.class);

    /**
     * The least time a connection may take to open: TCP, TLS and authentication are several round
     * trips, and the first connection of a JVM also loads and warms up the network stack, which
     * on a busy machine takes longer than a short command timeout.
     */
    static final Duration MIN_CONNECT_TIMEOUT = Duration.ofSeconds(2);


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
        if (uri.isSsl() && uri.getVerifyMode() == SslVerifyMode.NONE) {
            // Allowed, as for a test server with a throw-away certificate, but never silently.
            log.warn("TLS to {} does not verify the server (verifyPeer=NONE): anyone on the network path can pose as "
                    + "Redis and read the password and every lock call; use verifyPeer=FULL with trustedCertificates",
                    Redaction.uri(address));
        }
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
        config.tls().trustedCertificates().ifPresent(pem -> builder.sslOptions(SslOptions.builder()
                .jdkSslProvider()
                .trustManager(pem.toFile())
                .handshakeTimeout(connectTimeout(config))
                .build()));
        config.tls().managers().ifPresent(managers -> {
            SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().trustManager(managers.trust())
                    .handshakeTimeout(connectTimeout(config));
            if (managers.keys() != null) {
                ssl.keyManager(managers.keys());
            }
            builder.sslOptions(ssl.build());
        });
        return builder;
    }
}
