package io.latchkey.testing;

import static io.latchkey.testing.RedisLaunch.EXIT_TIMEOUT;
import static io.latchkey.testing.RedisLaunch.HOST;
import static io.latchkey.testing.RedisLaunch.awaitExit;

import io.latchkey.testing.RedisLaunch.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real {@code redis-server} process on a free loopback port, for tests that need Redis and
 * for tests that break it: stop, kill, pause, resume and restart on the same port.
 *
 * <p>The server runs the binary {@link RedisBinary#path()} chooses, with its own temporary
 * directory as {@code --dir}, persistence off ({@code --save ""}, {@code --appendonly no}) and
 * its output in {@link #logFile()}. It is reachable at {@link #uri()} only from this host.
 *
 * <p>Always {@link #close()} it, best with try-with-resources or in an {@code @AfterAll}: that
 * kills the process and deletes the directory. A server that is not closed is still killed when
 * the JVM exits, by a shutdown hook.
 *
 * <p>Thread-safe: the lifecycle methods are serialized. Every method that waits does so with a
 * bound, and throws {@link RedisFixtureException} when the bound passes.
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);

    private static final Duration JVM_EXIT_WAIT = Duration.ofSeconds(2);
    private static final int START_ATTEMPTS = 5;
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final Path binary;
    private final List<String> extraArgs;
    private final ServerFiles files;

    // Chosen while starting, then fixed; volatile for the shutdown hook, which takes no lock.
    private volatile int port;
    private volatile Process process;
    private boolean paused;
    private boolean closed;

    private RedisServer(Path binary, List<String> extraArgs, ServerFiles files) {
        this.binary = binary;
        this.extraArgs = extraArgs;
        this.files = files;
    }

    /**
     * Starts a server on a free port of 127.0.0.1 and waits until it answers {@code PING}.
     *
     * <p>If another process takes the chosen port before Redis binds it, the server is started
     * again on another port, a few times at most.
     *
     * @param extraArgs arguments appended to the command line, so they override the fixture's
     *        defaults, for example {@code "--requirepass", "secret"}; none may be null
     * @return the running server
     * @throws RedisFixtureException if no binary is available, or the server exits or does not
     *         answer within 10 seconds; the message ends with the tail of the server's log
     */
    public static RedisServer start(String... extraArgs) {
        return start(() -> FreePorts.pick(HOST), extraArgs);
    }

    /** Like {@link #start(String...)}, with the source of free ports given, so tests can force a taken one. */
    static RedisServer start(IntSupplier freePorts, String... extraArgs) {
        return startWithConfig(freePorts, null, extraArgs);
    }

    /**
     * Like {@link #start(String...)}, but with a configuration file that the server may rewrite,
     * as Sentinel and Cluster nodes do: {@code config} is written to {@code redis.conf} in the
     * server's directory and passed as the first argument. Restarts read the file as the server
     * left it.
     *
     * @param freePorts the source of free ports
     * @param config the content of the configuration file, or null for none
     * @param extraArgs arguments after the fixture's own, such as {@code "--sentinel"}
     * @return the running server
     */
    static RedisServer startWithConfig(IntSupplier freePorts, String config, String... extraArgs) {
        List<String> args = List.of(extraArgs);
        Path binary = RedisBinary.path();
        RedisServer server = new RedisServer(binary, args, ServerFiles.create(config));
        // Registered before any process exists, so that none can outlive the JVM.
        LiveServers.register(server);
        try {
            server.startOnFreePort(freePorts);
            return server;
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    /** @return the TCP port, the same for the life of this object, restarts included */
    public int port() {
        return port;
    }

    /** @return {@code "127.0.0.1"}, the only address the server listens on */
    public String host() {
        return HOST;
    }

    /** @return {@code "redis://127.0.0.1:<port>"}, without credentials even if a password is set */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /**
     * @return the process id of the latest process; it changes with each {@link #restart()}, and
     *         stays readable after the process ended
     */
    public long pid() {
        return process.pid();
    }

    /**
     * @return the version of the binary this server runs, such as {@code "7.0.15"}
     * @throws RedisFixtureException if the version cannot be read
     */
    public String version() {
        return RedisBinary.versionOf(binary);
    }

    /**
     * @return the major version of the binary this server runs, such as 7
     * @throws RedisFixtureException if the version cannot be read
     */
    public int majorVersion() {
        return RedisBinary.majorOf(version());
    }

    /** @return the executable this server runs */
    public Path binary() {
        return binary;
    }

    /**
     * @return the file that holds the server's standard output and error, across restarts; it is
     *         deleted by {@link #close()}
     */
    public Path logFile() {
        return files.logFile();
    }

    /** @return whether the process is alive, also while it is paused */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** @return whether the process is alive and paused by {@link #pause()} */
    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * Sends {@code PING} on a new connection.
     *
     * @param timeout the longest time to wait for the connection and the reply, positive, not null
     * @return whether the server answered {@code +PONG} (or {@code -NOAUTH}) in time; false while
     *         it is paused, stopped or killed
     */
    public boolean ping(Duration timeout) {
        return RedisPing.answers(HOST, port, timeout);
    }

    /**
     * Runs one command on a new raw connection, as {@code redis-cli} would, for tests that
     * arrange or inspect a server behind the back of the client under test. The connection is
     * the default user's, so the server must not require a password for it.
     *
     * @param command the command and its arguments, for example {@code "CONFIG", "SET", "maxmemory", "1mb"}
     * @return the reply: a {@link String}, a {@link Long}, a {@link List} of replies, or null
     * @throws RedisFixtureException if the server does not answer within 5 seconds or answers
     *         with an error
     */
    public Object command(String... command) {
        return RespClient.call(HOST, port, COMMAND_TIMEOUT, List.of(command));
    }

    /**
     * Reads one field of {@code INFO}.
     *
     * @param section the {@code INFO} section, for example {@code "replication"}
     * @param field the field, for example {@code "role"}
     * @return the value, or empty if the server does not report that field
     * @throws RedisFixtureException if the server does not answer
     */
    public Optional<String> info(String section, String field) {
        String text = String.valueOf(command("INFO", section));
        String prefix = field + ":";
        return text.lines().filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()).strip())
                .findFirst();
    }

    /**
     * Shuts the server down gracefully with {@code SIGTERM} and waits until the process has exited.
     * A paused server is resumed first, since a stopped process cannot act on {@code SIGTERM}.
     * Does nothing if the process is not running.
     *
     * @throws IllegalStateException if the server is closed
     * @throws RedisFixtureException if the process has not exited after 10 seconds; it is then
     *         killed with {@code SIGKILL} before this is thrown
     */
    public synchronized void stop() {
        requireOpen();
        if (!isRunning()) {
            return;
        }
        if (paused) {
            resume();
        }
        // Process.destroy() is SIGTERM on Unix, which Redis handles as SHUTDOWN.
        process.destroy();
        if (!awaitExit(process, EXIT_TIMEOUT)) {
            process.destroyForcibly();
            awaitExit(process, EXIT_TIMEOUT);
            throw new RedisFixtureException(this + " ignored SIGTERM for " + EXIT_TIMEOUT.toSeconds()
                    + " s and was killed" + files.logTail(0));
        }
    }

    /**
     * Kills the process with {@code SIGKILL}, as a crash would end it, and waits until it has exited.
     * Works on a paused server too. Does nothing if the process is not running.
     *
     * @throws IllegalStateException if the server is closed
     * @throws RedisFixtureException if the process has not exited after 10 seconds
     */
    public synchronized void kill() {
        requireOpen();
        if (!isRunning()) {
            return;
        }
        paused = false;
        RedisLaunch.kill(process, this);
    }

    /**
     * Freezes the process with {@code SIGSTOP}: connections stay open and new ones are accepted
     * by the kernel, but no command is answered until {@link #resume()}, as with a long GC pause
     * or a stalled host. Does nothing if already paused.
     *
     * @throws IllegalStateException if the server is closed or not running
     * @throws RedisFixtureException if the signal cannot be sent
     */
    public synchronized void pause() {
        requireOpen();
        if (!isRunning()) {
            throw new IllegalStateException(this + " is not running");
        }
        if (!paused) {
            ProcessSignals.stop(process.pid());
            paused = true;
        }
    }

    /**
     * Lets a paused process continue with {@code SIGCONT}. Does nothing if it is not paused.
     *
     * @throws IllegalStateException if the server is closed
     * @throws RedisFixtureException if the signal cannot be sent
     */
    public synchronized void resume() {
        requireOpen();
        if (paused && isRunning()) {
            ProcessSignals.resume(process.pid());
        }
        paused = false;
    }

    /**
     * Starts a new process after {@link #stop()} or {@link #kill()}, on the same port, with the
     * same arguments and directory, and waits until it answers {@code PING}. The data is gone:
     * the fixture runs Redis without persistence, unless the extra arguments turned it on.
     *
     * @throws IllegalStateException if the server is closed or still running
     * @throws RedisFixtureException if the port has been taken meanwhile, or the server exits or
     *         does not answer within 10 seconds
     */
    public synchronized void restart() {
        requireOpen();
        if (isRunning()) {
            throw new IllegalStateException(this + " is still running; stop() or kill() it first");
        }
        RedisLaunch launch = launch();
        Outcome outcome = launch.await();
        if (outcome != Outcome.READY) {
            throw launch.failure(outcome);
        }
    }

    /**
     * Kills the process if it runs (paused or not), and deletes the server's directory, log
     * included. Idempotent; never throws: a failure is logged.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                destroyForcibly();
            } catch (RuntimeException e) {
                log.warn("Cannot kill {}", this, e);
            }
            try {
                files.delete();
            } catch (IOException | UncheckedIOException e) {
                log.warn("Cannot delete {}", files.dir(), e);
            }
        }
        LiveServers.unregister(this);
    }

    @Override
    public String toString() {
        return "redis-server " + HOST + ":" + port + " (" + binary + ")";
    }

    /**
     * Kills the process and deletes the directory for the JVM shutdown hook, without taking this
     * object's lock, which a test thread may hold; best effort, never throws.
     */
    void killOnJvmExit() {
        Process current = process;
        if (current != null && current.isAlive()) {
            // SIGKILL ends a stopped process as well, so a paused server needs no SIGCONT here.
            current.destroyForcibly();
            awaitExit(current, JVM_EXIT_WAIT);
        }
        try {
            files.delete();
        } catch (IOException | UncheckedIOException ignored) {
            // The JVM is going away; a leftover temp directory is all that is lost.
        }
    }

    private void startOnFreePort(IntSupplier freePorts) {
        for (int attempt = 1; ; attempt++) {
            port = freePorts.getAsInt();
            RedisLaunch launch = launch();
            Outcome outcome = launch.await();
            if (outcome == Outcome.READY) {
                log.debug("Started {} as pid {}", this, process.pid());
                return;
            }
            if (outcome != Outcome.PORT_IN_USE || attempt == START_ATTEMPTS) {
                throw launch.failure(outcome);
            }
            log.debug("Port {} was taken before redis-server bound it; trying another", port);
        }
    }

    /** Runs a new process on {@link #port}, kept in {@link #process} before it is awaited. */
    private RedisLaunch launch() {
        RedisLaunch launch = RedisLaunch.start(this, binary.toString(), port, files, extraArgs);
        process = launch.process();
        paused = false;
        return launch;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private void destroyForcibly() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        if (paused) {
            try {
                ProcessSignals.resume(current.pid());
            } catch (RedisFixtureException e) {
                // SIGKILL ends a stopped process too; resuming first only spares Redis an odd state.
                log.debug("Cannot resume {} before killing it", this, e);
            }
            paused = false;
        }
        RedisLaunch.kill(current, this);
    }
}
