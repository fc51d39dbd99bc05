package io.latchkey.internal.client;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.LockExceptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Asks a server whether it refuses the configured login, for a connect that reached the server
 * and failed without saying why. Lettuce's handshake closes the channel before it completes with
 * the server's refusal ({@code RedisHandshakeHandler.fail}), and the close, when seen first, is
 * reported instead ("Connection closed prematurely", "RedisHandshakeHandler not registered")
 * with the refusal dropped: about once in 70 to 130 wrong-password connects to a Cluster. The probe connects without credentials and without
 * handshake commands (RESP2, no PING), then sends {@code AUTH} as a command of its own, whose
 * error reply no close can hide. Stateless.
 */
final class LoginProbe {

    private LoginProbe() {
    }

    /**
     * Adds the server's refusal of the login to {@code failure}, as a suppressed exception, if
     * the failure shows the server was reached but names no refusal, the URI has a password, and
     * the server refuses the URI's credentials when asked once more.
     *
     * @param failure why connecting failed
     * @param uri the URI the connect used
     * @param config the configuration, for the connection's options (timeouts, TLS trust)
     * @param resources the client's Lettuce resources
     * @return {@code failure}
     */
    static RuntimeException explain(RuntimeException failure, RedisURI uri, LockConfig config, ClientResources resources) {
        if (!LockExceptions.mayHideARefusal(failure)) {
            return failure;
        }
        if (uri.getHost() == null || !uri.getSentinels().isEmpty()) {
            return failure; // a Sentinel's answers are about the Sentinel, not the master
        }
        RedisCredentials credentials = credentials(uri);
        if (credentials == null || !credentials.hasPassword()) {
            return failure;
        }
        RedisURI bare = RedisURI.builder()
                .withHost(uri.getHost())
                .withPort(uri.getPort())
                .withSsl(uri.isSsl())
                .withStartTls(uri.isStartTls())
                .withVerifyPeer(uri.getVerifyMode())
                .withTimeout(uri.getTimeout())
                .build();
        RedisClient probe = RedisClient.create(resources, bare);
        probe.setOptions(ConnectionOptions.apply(ClientOptions.builder(), config)
                .protocolVersion(ProtocolVersion.RESP2)
                .pingBeforeActivateConnection(false)
                .autoReconnect(false)
                .build());
        try (StatefulRedisConnection<String, String> connection = probe.connect(StringCodec.UTF8)) {
            if (credentials.hasUsername()) {
                connection.sync().auth(credentials.getUsername(), new String(credentials.getPassword()));
            } else {
                connection.sync().auth(new String(credentials.getPassword()));
            }
        } catch (RedisCommandExecutionException refused) {
            failure.addSuppressed(refused);
        } catch (RuntimeException unreachedAgain) {
            // Nothing learned: the failure stands as it was.
        } finally {
            probe.shutdown(0, 2, TimeUnit.SECONDS);
        }
        return failure;
    }

    private static @Nullable RedisCredentials credentials(RedisURI uri) {
        RedisCredentialsProvider provider = uri.getCredentialsProvider();
        if (provider == null) {
            return null;
        }
        try {
            return provider.resolveCredentials().block(uri.getTimeout());
        } catch (RuntimeException unresolved) {
            return null;
        }
    }
}
