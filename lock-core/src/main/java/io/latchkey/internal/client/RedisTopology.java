package io.latchkey.internal.client;

import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;

/** The connections to one Redis deployment: a command connection and a pub/sub connection. */
interface RedisTopology extends AutoCloseable {

    /** @return commands and scripts on the shared connection */
    RedisExecutor executor();

    /** @return subscribe and unsubscribe on the shared pub/sub connection */
    SubscriptionCommands subscriptionCommands();

    /**
     * @param listener receives every message and (re)subscription of the pub/sub connection, and
     *     hears of every lost connection of the client
     */
    void listen(UnlockSubscriptions listener);

    /**
     * @param connected told each time a connection of the client is established, the first time
     *     and after each reconnection (on a Netty event-loop thread: it must not block); a
     *     connection that comes back may come back to a Redis that lost its data
     */
    void onConnected(Runnable connected);

    /** @return the command that release scripts publish with: {@code publish} or {@code spublish} */
    String publishCommand();

    /** Closes the connections and the client threads; idempotent. */
    @Override
    void close();
}
