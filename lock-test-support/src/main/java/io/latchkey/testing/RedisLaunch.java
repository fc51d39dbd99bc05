package io.latchkey.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts one {@code redis-server} process for a {@link RedisServer} and waits until it answers
 * {@code PING}, exits or runs out of time, telling a port lost to another process from other
 * failures so that the server can try another port.
 */
final class RedisLaunch {

    static final String HOST = "127.0.0.1";
    static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
    static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PING_TIMEOUT = Duration.ofMillis(500);
    private static final long EXIT_POLL_MILLIS = 10;
    private static final String PORT_IN_USE = "Address already in use";

    /** How a launch ended. */
    enum Outcome { READY, PORT_IN_USE, EXITED, TIMED_OUT }

    private final RedisServer server;
    private final Process process;
    private final int port;
    private final ServerFiles files;
    private final long logOffset;

    private RedisLaunch(RedisServer server, Process process, int port, ServerFiles files, long logOffset) {
        this.server = server;
        this.process = process;
        this.port = port;
        this.files = files;
        this.logOffset = logOffset;
    }

    /**
     * Runs a new process without waiting for it.
     *
     * @param server the server it is for, to name in messages
     * @param binary the executable
     * @param port the port it is to listen on
     * @param files its directory and log
     * @param extraArgs the arguments after the fixture's own
     * @return the launch, to {@link #await()}
     * @throws RedisFixtureException if the process cannot be run
     */
    static RedisLaunch start(RedisServer server, String binary, int port, ServerFiles files, List<String> extraArgs) {
        List<String> command = new ArrayList<>();
        command.add(binary);
        command.addAll(files.leadingArgs());
        command.addAll(List.of(
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--dir", files.dir().toString(),
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no"));
        command.addAll(extraArgs);
        long logOffset = files.logSize();
        try {
            Process process = new ProcessBuilder(command)
                    .directory(files.dir().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(files.logFile().toFile()))
                    .start();
            process.getOutputStream().close();
            return new RedisLaunch(server, process, port, files, logOffset);
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + String.join(" ", command), e);
        }
    }

    Process process() {
        return process;
    }

    /**
     * Waits until the process answers {@code PING}, exits, or {@link #STARTUP_TIMEOUT} passes;
     * then it is killed.
     *
     * @return how the launch ended
     * @throws RedisFixtureException if interrupted; the process is killed and the interrupt flag kept
     */
    Outcome await() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        try {
            while (true) {
                // Waiting on the process doubles as the poll interval and notices an early exit at once.
                if (process.waitFor(EXIT_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    return files.readLog(logOffset).contains(PORT_IN_USE) ? Outcome.PORT_IN_USE : Outcome.EXITED;
                }
                // Checked after the answer, so that a process which lost the port race and already
                // exited is not taken as up on the strength of another server's PONG. A PONG that
                // arrives before ours even reaches bind() could still fool this; that needs another
                // Redis to take the same ephemeral port within those milliseconds.
                if (RedisPing.answers(HOST, port, PING_TIMEOUT) && process.isAlive()) {
                    return Outcome.READY;
                }
                if (System.nanoTime() - deadline > 0) {
                    process.destroyForcibly();
                    awaitExit(process, EXIT_TIMEOUT);
                    return Outcome.TIMED_OUT;
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while starting " + server, e);
        }
    }

    /**
     * @param outcome a failed outcome of {@link #await()}
     * @return the failure, with what the process logged
     */
    RedisFixtureException failure(Outcome outcome) {
        String what;
        switch (outcome) {
            case PORT_IN_USE:
                what = "could not bind port " + port + ", another process holds it";
                break;
            case EXITED:
                what = "exited with code " + process.exitValue() + " before answering PING";
                break;
            case TIMED_OUT:
                what = "did not answer PING within " + STARTUP_TIMEOUT.toSeconds() + " s and was killed";
                break;
            default:
                throw new IllegalArgumentException(outcome.name());
        }
        return new RedisFixtureException(server + " " + what + files.logTail(logOffset));
    }

    /**
     * Kills the process with {@code SIGKILL}, which ends a paused one too, and waits for its exit.
     *
     * @param process the process
     * @param server its server, to name in the message
     * @throws RedisFixtureException if the process has not exited after {@link #EXIT_TIMEOUT}
     */
    static void kill(Process process, RedisServer server) {
        process.destroyForcibly();
        if (!awaitExit(process, EXIT_TIMEOUT)) {
            throw new RedisFixtureException(server + " did not exit " + EXIT_TIMEOUT.toSeconds() + " s after SIGKILL");
        }
    }

    /** Waits for the exit, keeping the interrupt flag; returns whether the process has exited. */
    static boolean awaitExit(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }
}
