package io.latchkey.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends one command to a Redis server over a raw socket and reads the reply, so that the
 * fixture can set up clusters, replicas and users without the client library under test.
 *
 * <p>Replies are mapped to plain Java values: a simple or bulk string to {@link String}, an
 * integer to {@link Long}, an array to a {@link List} of such values, a nil to {@code null}; an
 * error reply is thrown as a {@link RedisFixtureException}. RESP2 only, which every server speaks
 * to a connection that did not send {@code HELLO 3}. Thread-safe: each call has its own socket.
 */
final class RespClient {

    private RespClient() {
    }

    /**
     * @param host the server's address, not null
     * @param port the server's port
     * @param timeout bound on connecting and on each read
     * @param command the command and its arguments, not empty
     * @return the reply
     * @throws RedisFixtureException if the server cannot be reached, does not answer in time, or
     *         answers with an error
     */
    static Object call(String host, int port, Duration timeout, List<String> command) {
        String what = String.join(" ", command) + " on " + host + ":" + port;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(encode(command));
            out.flush();
            Object reply = read(new BufferedInputStream(socket.getInputStream()));
            if (reply instanceof ErrorReply) {
                throw new RedisFixtureException(what + " failed: " + ((ErrorReply) reply).message);
            }
            return reply;
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + what + ": " + e.getMessage(), e);
        }
    }

    private static byte[] encode(List<String> command) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writeAscii(bytes, "*" + command.size() + "\r\n");
        for (String argument : command) {
            byte[] value = argument.getBytes(StandardCharsets.UTF_8);
            writeAscii(bytes, "$" + value.length + "\r\n");
            bytes.writeBytes(value);
            writeAscii(bytes, "\r\n");
        }
        return bytes.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream bytes, String text) {
        bytes.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed before a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] value = in.readNBytes(length);
                if (value.length < length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("bulk string cut short");
                }
                return new String(value, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    Object item = read(in);
                    items.add(item instanceof ErrorReply ? ((ErrorReply) item).message : item);
                }
                return items;
            }
            default:
                throw new IOException("not a RESP2 reply: '" + (char) type + line + "'");
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed in the middle of a reply");
            }
            if (b == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("CR without LF in a reply");
                }
                return line.toString();
            }
            line.append((char) b);
        }
    }

    /** An error reply, told apart from a string reply until it is thrown. */
    private static final class ErrorReply {
        final String message;

        ErrorReply(String message) {
            this.message = message;
        }
    }
}
