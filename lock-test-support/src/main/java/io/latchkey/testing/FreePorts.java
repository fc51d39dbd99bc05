package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

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

    /**
     * Picks a port that is free on {@code host} together with the port {@code offset} above it,
     * as a Redis Cluster node needs for its cluster bus ({@code port + 10000}) on servers older
     * than 7, which cannot be given a bus port of their own. Ports are drawn from a range low
     * enough that both fit below 65536.
     *
     * @param host a local address, not null
     * @param offset the distance of the second port, positive
     * @return a port that, with {@code port + offset}, was free a moment ago
     * @throws UncheckedIOException if no such pair is found after many tries
     */
    static int pickPair(String host, int offset) {
        int low = 20000;
        int high = 65535 - offset;
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(low, high);
            if (isFree(host, port) && isFree(host, port + offset)) {
                return port;
            }
        }
        throw new UncheckedIOException(new IOException("no free port pair " + offset + " apart on " + host));
    }

    private static boolean isFree(String host, int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
