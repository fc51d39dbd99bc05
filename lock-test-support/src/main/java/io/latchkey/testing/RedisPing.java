package io.latchkey.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Asks a Redis server whether it serves commands, over a raw socket, so that the fixture does
 * not depend on the client library under test.
 *
 * <p>Thread-safe.
 */
final class RedisPing {

    private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_REPLY_BYTES = 256;

    private RedisPing() {
    }

    /**
     * Sends {@code PING} on a new connection.
     *
     * <p>{@code +PONG} counts as an answer, and so does {@code -NOAUTH}: a server started with
     * {@code --requirepass} is up even though it refuses the command. {@code -LOADING} and other
     * errors do not count.
     *
     * @param host the server's address, not null
     * @param port the server's port
     * @param timeout the longest time to wait for the connection and the reply together, positive
     * @return whether the server answered in time
     */
    static boolean answers(String host, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), remainingMillis(deadline));
            // A paused server still completes the TCP handshake (the kernel does it), so only
            // the read timeout tells a stopped process from a live one.
            socket.setSoTimeout(remainingMillis(deadline));
            OutputStream out = socket.getOutputStream();
            out.write(PING);
            out.flush();
            String reply = readLine(socket.getInputStream());
            return reply.startsWith("+PONG") || reply.startsWith("-NOAUTH");
        } catch (IOException e) {
            return false;
        }
    }

    private static int remainingMillis(long deadline) throws IOException {
        long millis = Duration.ofNanos(deadline - System.nanoTime()).toMillis();
        if (millis <= 0) {
            throw new IOException("ping deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, millis);
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        while (line.length() < MAX_REPLY_BYTES) {
            int b = in.read();
            if (b < 0 || b == '\n') {
                break;
            }
            line.append((char) b);
        }
        return line.toString();
    }
}
