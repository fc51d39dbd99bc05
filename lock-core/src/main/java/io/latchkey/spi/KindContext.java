package io.latchkey.spi;

import io.latchkey.LockConfig;
import io.netty.util.Timer;

/**
 * What a lock kind of another module gets from the client that opens it: the configuration, the
 * client's Redis, further Redis servers on the client's own resources, and its timer. Nothing
 * else of the client is reachable from a kind.
 */
public interface KindContext {

    /** @return the client's configuration */
    LockConfig config();

    /**
     * @return the client's own Redis ({@code address} or {@code clusterAddresses}), as its locks share it
     * @throws IllegalStateException if the client has neither
     */
    LockServer lockContext();

    /**
     * Connects to one more Redis server, sharing the client's event loops, timer, watchdog and
     * client id; the client closes the connection when it closes. Blocks for at most the connect
     * timeout, so call it where blocking is allowed.
     *
     * @param address a {@code redis://} or {@code rediss://} URI
     * @return that server, as the client's locks on it share it
     * @throws io.latchkey.LockException if it cannot be reached
     * @throws IllegalStateException if the client is closed
     */
    LockServer connect(String address);

    /** @return the client's one timer, for kinds that schedule on their own */
    Timer timer();

    /** @return the client's clock, for kinds that measure time on their own */
    Ticker ticker();

    /** @return where the client records the holds of its owners, for every kind */
    HoldRegistry holds();
}
