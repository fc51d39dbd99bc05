package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on a free loopback port in front of one Redis server, which a test can make
 * misbehave the way networks do: lose a reply, hang, answer late, or reset connections. Point a
 * client at {@link #uri()} instead of the server's.
 *
 * <p>Faults apply at once to live connections and to every connection accepted later, which is
 * what a reconnecting client meets. Until one is armed, and again after {@link #heal()}, bytes
 * pass unchanged in both directions.
 *
 * <p>The most precise fault is {@link #dropReplyTo(String, Disconnect)}: the chosen command
 * reaches Redis and runs there, but its reply is swallowed and the connection cut, so the client
 * cannot know whether it ran. The proxy reads RESP in both directions and pairs the n-th command
 * of a connection with its n-th reply, so replies to the commands pipelined before the chosen one
 * still arrive. That pairing assumes one reply per command, which holds for every connection
 * except one in RESP2 subscribe mode; choose commands on ordinary connections.
 *
 * <p>Always {@link #close()} it: that closes the listening socket and every connection. Its
 * threads are daemons, four per connection and one acceptor. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

    /** How a connection is cut. */
    public enum Disconnect {
        /** An orderly close: the peer reads the end of the stream (a TCP FIN). */
        CLOSE,
        /** An abort: the peer's next read or write fails with "connection reset" (a TCP RST). */
        RESET
    }

    private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);

    private static final String HOST = "127.0.0.1";
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;
    private static final long ACCEPTOR_EXIT_MILLIS = 2_000;

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<ProxiedConnection> live = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicReference<ReplyDrop> armed = new AtomicReference<>();

    // Guard the faults that hold bytes back; every writer waits on the one condition.
    private final ReentrantLock faults = new ReentrantLock();
    private final Condition faultsChanged = faults.newCondition();
    private boolean blackHoled;
    private long replyDelayNanos;

    private volatile boolean closed;

    private FaultProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
        this.acceptor = new Thread(this::accept, "fault-proxy-" + listener.getLocalPort() + "-acceptor");
        acceptor.setDaemon(true);
    }

    /**
     * Starts a proxy in front of {@code server}; it keeps pointing at the server's port across
     * restarts.
     *
     * @param server the server, not null
     * @return the running proxy, passing bytes through
     * @throws UncheckedIOException if no loopback port can be bound
     */
    public static FaultProxy to(RedisServer server) {
        return to(server.host(), server.port());
    }

    /**
     * Starts a proxy in front of {@code host:port}. Nothing is connected until a client is: each
     * accepted connection opens its own connection to the target, and is reset at once if the
     * target cannot be reached.
     *
     * @param host the target's address, not null
     * @param port the target's port
     * @return the running proxy, passing bytes through
     * @throws UncheckedIOException if no loopback port can be bound
     */
    public static FaultProxy to(String host, int port) {
        try {
            FaultProxy proxy = new FaultProxy(new InetSocketAddress(Objects.requireNonNull(host, "host"), port));
            proxy.acceptor.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a proxy port on " + HOST, e);
        }
    }

    /** @return {@code "127.0.0.1"}, the only address the proxy listens on */
    public String host() {
        return HOST;
    }

    /** @return the port the proxy listens on, fixed for its life */
    public int port() {
        return listener.getLocalPort();
    }

    /** @return {@code redis://127.0.0.1:<port>}, to give a client instead of the server's URI */
    public String uri() {
        return "redis://" + HOST + ":" + port();
    }

    /** @return how many client connections are being forwarded: accepted, and not cut or ended by either side */
    public int connections() {
        return live.size();
    }

    /**
     * Lets the next command of any connection reach the server, swallows its reply and closes
     * that connection on both sides.
     *
     * @return as {@link #dropReplyTo(Predicate, Disconnect)}
     * @throws IllegalStateException as {@link #dropReplyTo(Predicate, Disconnect)}
     */
    public CompletableFuture<Void> dropNextReplyAndClose() {
        return dropReplyTo(anyCommand -> true, Disconnect.CLOSE);
    }

    /**
     * Lets the next command of any connection reach the server, swallows its reply and resets
     * that connection on both sides.
     *
     * @return as {@link #dropReplyTo(Predicate, Disconnect)}
     * @throws IllegalStateException as {@link #dropReplyTo(Predicate, Disconnect)}
     */
    public CompletableFuture<Void> dropNextReplyAndReset() {
        return dropReplyTo(anyCommand -> true, Disconnect.RESET);
    }

    /**
     * Like {@link #dropReplyTo(Predicate, Disconnect)}, for the first command whose raw bytes
     * contain {@code commandSubstring}: a command name as the client sends it ({@code "EVALSHA"}),
     * a script's SHA, a key.
     *
     * @param commandSubstring text to look for in the command's RESP bytes, not null
     * @param how how to cut the connection once the reply arrives, not null
     * @return as {@link #dropReplyTo(Predicate, Disconnect)}
     * @throws IllegalStateException as {@link #dropReplyTo(Predicate, Disconnect)}
     */
    public CompletableFuture<Void> dropReplyTo(String commandSubstring, Disconnect how) {
        Objects.requireNonNull(commandSubstring, "commandSubstring");
        return dropReplyTo(command -> command.contains(commandSubstring), how);
    }

    /**
     * Arms a one-shot fault: the first command, on any connection, that {@code command} accepts
     * is forwarded to the server as usual, so the server runs it; when the server's reply to it
     * arrives, the replies before it are forwarded, that reply and everything after it are
     * swallowed, and the connection is cut on both sides. Other commands, on that connection
     * before it and on other connections, pass untouched.
     *
     * @param command tests each command's raw RESP bytes read as ISO-8859-1 (one char per byte,
     *        the first 64 KiB), for example {@code "*3\r\n$3\r\nGET\r\n..."}; not null
     * @param how how to cut the connection, not null
     * @return completes once the reply was swallowed and the connection cut; fails if that
     *     connection ends before the reply arrives; is cancelled by {@link #heal()} or
     *     {@link #close()} if no command has matched by then
     * @throws IllegalStateException if a drop is already armed and has not matched a command yet
     */
    public CompletableFuture<Void> dropReplyTo(Predicate<String> command, Disconnect how) {
        ReplyDrop drop = new ReplyDrop(Objects.requireNonNull(command, "command"), Objects.requireNonNull(how, "how"),
                new CompletableFuture<>());
        if (!armed.compareAndSet(null, drop)) {
            throw new IllegalStateException("a reply drop is armed already and has not matched a command yet");
        }
        return drop.done();
    }

    /**
     * Holds every reply back until {@code delay} after it arrived from the server, on live and new
     * connections. Replies keep their order. {@link Duration#ZERO} ends the delay; replies held
     * back then pass at once.
     *
     * @param delay how long to hold each reply, not negative, not null
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public void delay(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay cannot be negative: " + delay);
        }
        changeFaults(() -> replyDelayNanos = delay.toNanos());
    }

    /**
     * Makes the network swallow everything, as a partition does: connections are still accepted
     * and the client's bytes still read, but nothing reaches the server and nothing comes back.
     *
     * <p>Like a partition that heals before TCP gives up, nothing is lost: what was sent during
     * the black hole is held, and delivered on {@link #heal()}, so a command that timed out on
     * the client still runs on the server then, and the client's connection stays in step with
     * its replies. To lose it as well, {@link #resetAll()} before healing.
     */
    public void blackHole() {
        changeFaults(() -> blackHoled = true);
    }

    /**
     * Back to passing bytes through: ends the black hole (delivering what it held) and the
     * delay, and cancels a reply drop that has not matched a command yet. A drop that has
     * matched one still swallows that command's reply.
     */
    public void heal() {
        changeFaults(() -> {
            blackHoled = false;
            replyDelayNanos = 0;
        });
        ReplyDrop drop = armed.getAndSet(null);
        if (drop != null) {
            drop.done().cancel(false);
        }
    }

    /** Resets every live connection on both sides (a TCP RST), dropping what they had queued. */
    public void resetAll() {
        for (ProxiedConnection connection : List.copyOf(live)) {
            connection.cut(Disconnect.RESET);
        }
    }

    /**
     * Stops accepting, closes the listening port and closes every connection on both sides. Once
     * it returns the port is free to bind again. Idempotent, never throws.
     */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            log.debug("closing {} failed", this, e);
        }
        awaitAcceptorExit();
        ReplyDrop drop = armed.getAndSet(null);
        if (drop != null) {
            drop.done().cancel(false);
        }
        for (ProxiedConnection connection : List.copyOf(live)) {
            connection.cut(Disconnect.CLOSE);
        }
    }

    /**
     * The listening socket is only gone once the thread blocked in accept() on it has woken up:
     * until then a bind to the port fails, so close() waits for it.
     */
    private void awaitAcceptorExit() {
        if (Thread.currentThread() == acceptor) {
            return;
        }
        try {
            acceptor.join(ACCEPTOR_EXIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "FaultProxy{" + HOST + ":" + port() + " -> " + target.getHostString() + ":" + target.getPort() + "}";
    }

    /**
     * Blocks a writer until the faults let its bytes pass: not while black-holed, and for replies
     * not before the delay after their arrival.
     *
     * @param arrivedNanos when the bytes were read, by {@link System#nanoTime()}
     * @param reply whether they go toward the client
     * @throws InterruptedException when the connection is cut meanwhile
     */
    void awaitPassage(long arrivedNanos, boolean reply) throws InterruptedException {
        faults.lock();
        try {
            while (true) {
                if (blackHoled) {
                    faultsChanged.await();
                    continue;
                }
                long wait = reply ? arrivedNanos + replyDelayNanos - System.nanoTime() : 0;
                if (wait <= 0) {
                    return;
                }
                faultsChanged.awaitNanos(wait);
            }
        } finally {
            faults.unlock();
        }
    }

    /**
     * @param rawCommand a command a connection is about to forward
     * @return the armed drop, now disarmed, if it wants this command; else null
     */
    ReplyDrop claimDrop(String rawCommand) {
        ReplyDrop drop = armed.get();
        if (drop != null && drop.matches(rawCommand) && armed.compareAndSet(drop, null)) {
            return drop;
        }
        return null;
    }

    /** Called by a connection once it is cut. */
    void forget(ProxiedConnection connection) {
        live.remove(connection);
    }

    private void changeFaults(Runnable change) {
        faults.lock();
        try {
            change.run();
            faultsChanged.signalAll();
        } finally {
            faults.unlock();
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("{} stopped accepting", this, e);
                }
                return;
            }
            String name = "fault-proxy-" + port() + "-c" + accepted.incrementAndGet();
            Socket server = new Socket();
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(target, CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                // The target is down: the client sees what a closed port would show it, a reset.
                log.debug("{} cannot reach {}: {}", name, target, e.toString());
                abort(client);
                abort(server);
                continue;
            }
            ProxiedConnection connection = new ProxiedConnection(this, client, server, name);
            live.add(connection);
            if (closed) {
                connection.cut(Disconnect.CLOSE);
                return;
            }
            connection.start();
        }
    }

    private static void abort(Socket socket) {
        try {
            if (!socket.isClosed()) {
                socket.setSoLinger(true, 0);
            }
            socket.close();
        } catch (IOException ignored) {
            // Gone either way.
        }
    }
}
