package io.latchkey.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Stops and continues processes with {@code SIGSTOP} and {@code SIGCONT}, which the JDK cannot
 * send, through the {@code kill} command.
 *
 * <p>Where {@code /proc} exists (Linux) each call returns only once the process is seen in the
 * requested state, so a test may act on it at once; elsewhere it returns once the signal is
 * sent. {@link RedisServer#pause()} uses it for servers; tests use it directly to freeze a JVM of
 * their own, such as a lock holder that must pause past its lease. Thread-safe.
 */
public final class ProcessSignals {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private ProcessSignals() {
    }

    /**
     * Stops a process as {@code kill -STOP} does.
     *
     * @param pid the process
     * @throws RedisFixtureException if the signal cannot be sent or the process does not stop in time
     */
    public static void stop(long pid) {
        send("STOP", pid);
        awaitState(pid, true);
    }

    /**
     * Continues a stopped process as {@code kill -CONT} does.
     *
     * @param pid the process
     * @throws RedisFixtureException if the signal cannot be sent or the process does not continue in time
     */
    public static void resume(long pid) {
        send("CONT", pid);
        awaitState(pid, false);
    }

    private static void send(String signal, long pid) {
        String command = "kill -" + signal + " " + pid;
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            kill.getOutputStream().close();
            if (!kill.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
                throw new RedisFixtureException(command + " did not exit within " + TIMEOUT.toSeconds() + " s");
            }
            if (kill.exitValue() != 0) {
                String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                throw new RedisFixtureException(command + " failed with exit code " + kill.exitValue()
                        + ": " + output.strip());
            }
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while running " + command, e);
        }
    }

    private static void awaitState(long pid, boolean stopped) {
        Path stat = Paths.get("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            Boolean isStopped = readStopped(stat);
            if (isStopped == null || isStopped == stopped) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new RedisFixtureException("process " + pid + " is not " + (stopped ? "stopped" : "running")
                        + " " + TIMEOUT.toSeconds() + " s after the signal");
            }
            // The kernel acts on the signal within microseconds; this is only the poll interval.
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new RedisFixtureException("interrupted while waiting for process " + pid);
            }
        }
    }

    /** Returns whether the process is stopped, or null if its state cannot be read here. */
    private static Boolean readStopped(Path stat) {
        String text;
        try {
            text = Files.readString(stat, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return null;
        }
        // "pid (comm) S ...": comm may itself hold spaces and parentheses, the state follows the last ')'.
        int close = text.lastIndexOf(')');
        if (close < 0 || close + 2 >= text.length()) {
            return null;
        }
        char state = text.charAt(close + 2);
        return state == 'T' || state == 't';
    }
}
