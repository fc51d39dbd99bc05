package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Picks TCP ports that are free on the loopback address.
 *
 * <p>A port is only known to be free at the moment it is picked: another process may bind it
 * before the server does, so callers must be ready to retry. Thread-safe.
 */
final class FreePorts {

    private FreePorts() {
    }

    /**
     * Lets the operating system choose a free port on {@code host} and releases it again.
     *
     * @param host a local address, not null
     * @return a port that was free a moment ago
     * @throws UncheckedIOException if no socket can be bound
     */
    static int pick(String host) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a free port on " + host, e);
        }
    }
}
