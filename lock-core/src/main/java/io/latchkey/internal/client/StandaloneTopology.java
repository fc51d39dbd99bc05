package io.latchkey.internal.client;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.redis.Redaction;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One Redis server, or the master of a Sentinel group that Lettuce follows through failovers:
 * on each reconnect it asks the Sentinels for the current master, and the pub/sub connection
 * subscribes its channels again, which wakes every waiter to re-check. Commands fail at once
 * while disconnected rather than queue, so a caller never learns of an acquire only after it
 * gave up.
 */
final class StandaloneTopology implements RedisTopology {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final RedisExecutor executor;

    private StandaloneTopology(RedisClient client,
                               StatefulRedisConnection<String, String> connection,
                               StatefulRedisPubSubConnection<String, String> pubSub, Duration commandTimeout, String where) {
        this.client = client;
        this.connection = connection;
        this.pubSub = pubSub;
        this.executor = new RedisExecutor(connection.async(), commandTimeout, where);
    }

    static StandaloneTopology connect(String address, LockConfig config, SharedResources resources) {
        RedisURI uri = ConnectionOptions.uri(address, config);
        RedisClient client = RedisClient.create(resources.lettuce(), uri);
        client.setOptions(ConnectionOptions.apply(ClientOptions.builder(), config).build());
        String where = Redaction.uri(address);
        try {
            StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
            StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8);
            return new StandaloneTopology(client, connection, pubSub, config.commandTimeout(), where);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw LockExceptions.connectFailed(where, LoginProbe.explain(e, uri, config, resources.lettuce()));
        }
    }

    @Override
    public RedisExecutor executor() {
        return executor;
    }

    @Override
    public void listen(UnlockSubscriptions listener) {
        pubSub.addListener(listener);
        client.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                listener.connectionLost();
            }
        });
    }

    @Override
    public SubscriptionCommands subscriptionCommands() {
        return SubscriptionCommands.of(
                channel -> pubSub.async().subscribe(channel).toCompletableFuture(),
                channel -> pubSub.async().unsubscribe(channel).toCompletableFuture());
    }

    @Override
    public void onConnected(Runnable connected) {
        client.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
                connected.run();
            }
        });
    }

    @Override
    public String publishCommand() {
        return "publish";
    }

    @Override
    public void close() {
        pubSub.close();
        connection.close();
        // The client's shared resources outlive this topology; the client closes them last.
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
