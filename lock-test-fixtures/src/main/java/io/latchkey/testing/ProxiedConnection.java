package io.latchkey.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client connection through a {@link FaultProxy}, and its connection to the server.
 *
 * <p>Each direction has a reader thread, which reads whatever arrives at once, stamps it with its
 * arrival time and queues it, and a writer thread, which takes it from the queue, waits for the
 * proxy's faults to let it pass, and forwards it. Reading is never held up, so a black-holed
 * client's writes do not block and delays are measured from arrival, not from the end of the
 * previous delay. The writers also frame the RESP they forward, to pair the n-th command with the
 * n-th reply for {@link ReplyDrop}.
 *
 * <p>Thread-safe; {@link #cut} may be called from any thread, any number of times.
 */
final class ProxiedConnection {

    private static final int CHUNK_BYTES = 16 * 1024;
    /** Commands are matched on their first bytes only; enough for any key, SHA or command name. */
    private static final int MATCHED_BYTES = 64 * 1024;

    /** Bytes read from one side, and when they arrived. */
    private record Chunk(byte[] bytes, int length, long arrivedNanos) {
    }

    /** Queued after the last chunk when a side ends its stream or fails. */
    private static final Chunk END = new Chunk(new byte[0], 0, 0);

    /** A drop this connection claimed, and which reply it is for (counted from 0). */
    private record ClaimedDrop(ReplyDrop drop, long replyIndex) {
    }

    private final FaultProxy proxy;
    private final Socket client;
    private final Socket server;
    private final String name;
    private final BlockingQueue<Chunk> towardServer = new LinkedBlockingQueue<>();
    private final BlockingQueue<Chunk> towardClient = new LinkedBlockingQueue<>();
    private final AtomicBoolean cut = new AtomicBoolean();
    private final List<Thread> threads;

    // Used by the writer toward the server only.
    private final RespFramer commands = new RespFramer();
    private byte[] command = new byte[256];
    private int commandLength;

    // Used by the writer toward the client only.
    private final RespFramer replies = new RespFramer();

    // Set by the writer toward the server before it forwards the command, read by the writer
    // toward the client, which cannot see the reply before the command was forwarded.
    private volatile ClaimedDrop claimed;

    ProxiedConnection(FaultProxy proxy, Socket client, Socket server, String name) {
        this.proxy = proxy;
        this.client = client;
        this.server = server;
        this.name = name;
        this.threads = List.of(
                daemon(() -> read(client, towardServer), name + "-from-client"),
                daemon(this::forwardCommands, name + "-to-server"),
                daemon(() -> read(server, towardClient), name + "-from-server"),
                daemon(this::forwardReplies, name + "-to-client"));
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    void start() {
        threads.forEach(Thread::start);
    }

    /**
     * Ends both sides at once, dropping whatever is queued, and fails a drop that was claimed
     * but whose reply never came. Idempotent.
     *
     * @param how FIN or RST toward the client and the server
     * @return true if this call cut it, false if it was cut already
     */
    boolean cut(FaultProxy.Disconnect how) {
        if (!cut.compareAndSet(false, true)) {
            return false;
        }
        proxy.forget(this);
        end(client, how);
        end(server, how);
        for (Thread thread : threads) {
            if (thread != Thread.currentThread()) {
                thread.interrupt();
            }
        }
        ClaimedDrop pending = claimed;
        if (pending != null) {
            pending.drop().done().completeExceptionally(
                    new IOException(name + " ended before the reply to the chosen command arrived"));
        }
        return true;
    }

    private static void end(Socket socket, FaultProxy.Disconnect how) {
        try {
            if (how == FaultProxy.Disconnect.RESET) {
                // A zero linger makes close() abort the connection with a RST.
                socket.setSoLinger(true, 0);
            } else if (!socket.isOutputShutdown()) {
                // The FIN goes out now, even if unread bytes would make close() send a RST.
                socket.shutdownOutput();
            }
        } catch (IOException alreadyGone) {
            // Nothing left to tell the peer.
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closed is closed.
        }
    }

    private void read(Socket from, BlockingQueue<Chunk> queue) {
        try {
            InputStream in = from.getInputStream();
            while (true) {
                byte[] buffer = new byte[CHUNK_BYTES];
                int length = in.read(buffer);
                if (length < 0) {
                    break;
                }
                queue.add(new Chunk(buffer, length, System.nanoTime()));
            }
        } catch (IOException e) {
            // Reset by the peer, or cut by the proxy: either way the stream is over.
        }
        queue.add(END);
    }

    private void forwardCommands() {
        try {
            OutputStream out = server.getOutputStream();
            while (true) {
                Chunk chunk = towardServer.take();
                if (chunk == END) {
                    break;
                }
                proxy.awaitPassage(chunk.arrivedNanos(), false);
                // Claim before forwarding, so the reply cannot arrive before the claim is seen.
                claimDropsIn(chunk);
                out.write(chunk.bytes(), 0, chunk.length());
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // Cut, or the server went away.
        }
        cut(FaultProxy.Disconnect.CLOSE);
    }

    private void claimDropsIn(Chunk chunk) {
        for (int i = 0; i < chunk.length(); i++) {
            byte b = chunk.bytes()[i];
            if (commands.atMessageStart()) {
                commandLength = 0;
            }
            if (commandLength < MATCHED_BYTES) {
                if (commandLength == command.length) {
                    command = Arrays.copyOf(command, command.length * 2);
                }
                command[commandLength++] = b;
            }
            if (commands.feed(b) && claimed == null) {
                ReplyDrop drop = proxy.claimDrop(new String(command, 0, commandLength, StandardCharsets.ISO_8859_1));
                if (drop != null) {
                    claimed = new ClaimedDrop(drop, commands.messages() - 1);
                }
            }
        }
    }

    private void forwardReplies() {
        try {
            OutputStream out = client.getOutputStream();
            while (true) {
                Chunk chunk = towardClient.take();
                if (chunk == END) {
                    break;
                }
                proxy.awaitPassage(chunk.arrivedNanos(), true);
                int passing = bytesBeforeDroppedReply(chunk);
                out.write(chunk.bytes(), 0, passing);
                out.flush();
                if (passing < chunk.length()) {
                    ClaimedDrop fired = claimed;
                    claimed = null;
                    cut(fired.drop().how());
                    fired.drop().done().complete(null);
                    return;
                }
            }
        } catch (IOException | InterruptedException e) {
            // Cut, or the client went away.
        }
        cut(FaultProxy.Disconnect.CLOSE);
    }

    /** @return how many bytes of the chunk come before the reply to drop: all of them if it is not in it */
    private int bytesBeforeDroppedReply(Chunk chunk) {
        ClaimedDrop drop = claimed;
        for (int i = 0; i < chunk.length(); i++) {
            if (drop != null && replies.atMessageStart() && replies.messages() == drop.replyIndex()) {
                return i;
            }
            replies.feed(chunk.bytes()[i]);
        }
        return chunk.length();
    }

    @Override
    public String toString() {
        return name;
    }
}
