package io.latchkey.redlock.internal;

import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.spi.KindContext;
import io.latchkey.spi.KindFailures;
import io.latchkey.spi.LockServer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * One configured master of a client's RedLocks, and the client's connection to it once it could
 * be made. The connection shares the client's event loops, timer and watchdog
 * ({@link KindContext#connect}), and the client closes it.
 *
 * <p>Connecting blocks until the connections are up or the connect timeout has passed (Lettuce
 * connects synchronously there). Only {@link #connectNow()}, which
 * {@code LockClient.create} calls and which is expected to block, connects on the caller's
 * thread. A master that could not be reached then is connected in the background, so that
 * {@code getRedLock} and the locks never wait for it: a task on the client's timer hands one
 * connect to the connector, a thread that may block, and a failed connect schedules the next one
 * on the timer, after one command timeout at first and twice as long each time, up to
 * {@value #MAX_RETRY_COMMAND_TIMEOUTS} command timeouts. There is never more than one connect in
 * flight per master. Until one succeeds, {@link #context()} is null and the master counts as one
 * that does not answer; once connected, a master stays so (its client reconnects by itself).
 *
 * <p>Thread-safe; no monitor is held while connecting or closing a client.
 */
final class MasterConnection {

    private static final Logger log = LoggerFactory.getLogger(MasterConnection.class);

    /** The longest pause between two connects, in command timeouts. */
    static final int MAX_RETRY_COMMAND_TIMEOUTS = 10;

    private final String address;
    /** The master's URI without credentials, for messages and logs. */
    private final String shown;
    private final KindContext client;
    private final long firstRetryNanos;
    private final long maxRetryNanos;
    /** Null until connected; then never changes. Written under this object's monitor. */
    private volatile @Nullable LockServer context;
    /** Why the last connect failed; null once connected. */
    private volatile @Nullable LockException failure;
    /** Guarded by this. */
    private @Nullable Timer timer;
    /** Guarded by this. */
    private @Nullable Executor connector;
    /** Guarded by this. */
    private long nextRetryNanos;
    /** Guarded by this. */
    private @Nullable Timeout retry;
    /** Guarded by this. */
    private boolean connecting;
    /** Guarded by this. */
    private boolean closed;

    /**
     * @param address the master's URI
     * @param client the client whose RedLocks use this master; its timeouts apply
     */
    MasterConnection(String address, KindContext client) {
        this.address = address;
        this.shown = KindFailures.redactedUri(address);
        this.client = client;
        LockConfig outer = client.config();
        this.firstRetryNanos = outer.commandTimeout().toNanos();
        this.maxRetryNanos = outer.commandTimeout().multipliedBy(MAX_RETRY_COMMAND_TIMEOUTS).toNanos();
        this.nextRetryNanos = firstRetryNanos;
    }

    /** @return the master's URI without credentials, fit for messages and logs */
    String shown() {
        return shown;
    }

    /** @return the bound on this master's answer to one acquire */
    Duration attemptTimeout() {
        return client.config().redLockAttemptTimeout();
    }

    /** @return the lock machinery on this master, or null while it is not connected; never blocks */
    @Nullable LockServer context() {
        return context;
    }

    /** @return why the last connect failed, or null if connected or not tried yet */
    @Nullable LockException failure() {
        return failure;
    }

    /**
     * Connects on the caller's thread, blocking for at most the connect timeout. Only for opening
     * the RedLocks of a client that is being created; on failure, see {@link #failure()}.
     */
    void connectNow() {
        try {
            connected(client.connect(address));
        } catch (LockException e) {
            failed(e);
        }
    }

    /**
     * Keeps connecting in the background until connected or closed; does nothing if connected.
     *
     * @param timer the client's timer, which schedules each connect
     * @param connector where a connect runs; it blocks that thread
     */
    synchronized void reconnectInBackground(Timer timer, Executor connector) {
        this.timer = timer;
        this.connector = connector;
        scheduleRetry();
    }

    /** Guarded by this. */
    private void scheduleRetry() {
        Timer on = timer;
        Executor runOn = connector;
        if (closed || context != null || on == null || runOn == null) {
            return;
        }
        long delayNanos = nextRetryNanos;
        nextRetryNanos = Math.min(nextRetryNanos * 2, maxRetryNanos);
        try {
            retry = on.newTimeout(due -> startConnect(runOn), delayNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            retry = null; // the client is closing: nothing to connect for
        }
    }

    /** On the timer: hands the connect to the connector, since it blocks. */
    private void startConnect(Executor runOn) {
        synchronized (this) {
            if (closed || context != null || connecting) {
                return;
            }
            connecting = true;
        }
        try {
            runOn.execute(this::connectInBackground);
        } catch (RejectedExecutionException closing) {
            synchronized (this) {
                connecting = false;
            }
        }
    }

    private void connectInBackground() {
        try {
            if (connected(client.connect(address))) {
                log.info("RedLock master {} is reachable again", shown);
            }
        } catch (LockException e) {
            if (isClosed()) {
                return; // the close interrupted the connect: nothing to report or retry
            }
            failed(e);
            log.debug("RedLock master {} still cannot be reached; trying again later: {}", shown, e.getMessage());
        } catch (IllegalStateException clientClosed) {
            close();
        } catch (RuntimeException e) {
            if (isClosed()) {
                return; // the close interrupted the connect: nothing to report or retry
            }
            // Not a failure to reach Redis, yet the next try may still succeed: keep trying, and say so.
            failed(RedLockFailures.masterConnectFailed(shown, e));
            log.warn("RedLock master {}: connecting failed unexpectedly; trying again later", shown, e);
        }
    }

    /** @return false if this was closed meanwhile; the client closes the connection with itself */
    private synchronized boolean connected(LockServer connected) {
        connecting = false;
        if (closed) {
            return false;
        }
        context = connected;
        failure = null;
        return true;
    }

    private synchronized void failed(LockException e) {
        connecting = false;
        failure = e;
        scheduleRetry();
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    /** Stops connecting; the client closes the connection itself. Idempotent. */
    synchronized void close() {
        closed = true;
        if (retry != null) {
            retry.cancel();
        }
    }

    @Override
    public String toString() {
        return shown;
    }
}
