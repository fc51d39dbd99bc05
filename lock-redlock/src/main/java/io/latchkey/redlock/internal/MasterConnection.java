package io.latchkey.redlock.internal;

import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.internal.client.DefaultLockClient;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.redis.Redaction;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One configured master of a client's RedLocks, and the internal client connected to it once it
 * could be.
 *
 * <p>Opening a client blocks until its connections are up or the connect timeout has passed
 * (Lettuce connects synchronously there). Only {@link #connectNow()}, which
 * {@code LockClient.create} calls and which is expected to block, connects on the caller's
 * thread. A master that could not be reached then is connected in the background, so that
 * {@code getRedLock} and the locks never wait for it: a task on the client's timer hands one
 * connect to the connector, a thread that may block, and a failed connect schedules the next one
 * on the timer, after one command timeout at first and twice as long each time, up to
 * {@value #MAX_RETRY_COMMAND_TIMEOUTS} command timeouts. There is never more than one connect in
 * flight per master. Until one succeeds, {@link #client()} is null and the master counts as one
 * that does not answer; once connected, a master stays so (its client reconnects by itself).
 *
 * <p>Thread-safe; no monitor is held while connecting or closing a client.
 */
final class MasterConnection {

    private static final Logger log = LoggerFactory.getLogger(MasterConnection.class);

    /** The longest pause between two connects, in command timeouts. */
    static final int MAX_RETRY_COMMAND_TIMEOUTS = 10;

    /** The master's URI without credentials, for messages and logs; the config has the real one. */
    private final String shown;
    private final LockConfig config;
    private final long firstRetryNanos;
    private final long maxRetryNanos;
    /** Null until connected; then never changes. Written under this object's monitor. */
    private volatile DefaultLockClient client;
    /** Why the last connect failed; null once connected. */
    private volatile LockException failure;
    /** Guarded by this. */
    private Timer timer;
    /** Guarded by this. */
    private Executor connector;
    /** Guarded by this. */
    private long nextRetryNanos;
    /** Guarded by this. */
    private Timeout retry;
    /** Guarded by this. */
    private boolean connecting;
    /** Guarded by this. */
    private boolean closed;

    /**
     * @param address the master's URI
     * @param outer the configuration of the client whose RedLocks use this master; its timeouts
     *     apply to the internal client
     */
    MasterConnection(String address, LockConfig outer) {
        this.shown = Redaction.uri(address);
        this.config = LockConfig.builder()
                .address(address)
                .watchdogTimeout(outer.watchdogTimeout())
                .commandTimeout(outer.commandTimeout())
                .fairLockWaitTimeout(outer.fairLockWaitTimeout())
                .redLockAttemptTimeout(outer.redLockAttemptTimeout())
                .build();
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
        return config.redLockAttemptTimeout();
    }

    /** @return the internal client connected to this master, or null while it is not; never blocks */
    DefaultLockClient client() {
        return client;
    }

    /** @return why the last connect failed, or null if connected or not tried yet */
    LockException failure() {
        return failure;
    }

    /**
     * Connects on the caller's thread, blocking for at most the connect timeout. Only for opening
     * the RedLocks of a client that is being created; on failure, see {@link #failure()}.
     */
    void connectNow() {
        try {
            connected(DefaultLockClient.connect(config));
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
        if (closed || client != null || timer == null) {
            return;
        }
        long delayNanos = nextRetryNanos;
        nextRetryNanos = Math.min(nextRetryNanos * 2, maxRetryNanos);
        try {
            retry = timer.newTimeout(due -> startConnect(), delayNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            retry = null; // the client is closing: nothing to connect for
        }
    }

    /** On the timer: hands the connect to the connector, since it blocks. */
    private void startConnect() {
        Executor runOn;
        synchronized (this) {
            if (closed || client != null || connecting) {
                return;
            }
            connecting = true;
            runOn = connector;
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
            DefaultLockClient connected = DefaultLockClient.connect(config);
            if (connected(connected)) {
                log.info("RedLock master {} is reachable again", shown);
            }
        } catch (LockException e) {
            failed(e);
            log.debug("RedLock master {} still cannot be reached; trying again later: {}", shown, e.getMessage());
        } catch (RuntimeException e) {
            // Not a failure to reach Redis, yet the next try may still succeed: keep trying, and say so.
            failed(LockExceptions.masterConnectFailed(shown, e));
            log.warn("RedLock master {}: connecting failed unexpectedly; trying again later", shown, e);
        }
    }

    /** @return false if this was closed meanwhile: then the new client is closed at once */
    private boolean connected(DefaultLockClient connected) {
        synchronized (this) {
            connecting = false;
            if (!closed) {
                client = connected;
                failure = null;
                return true;
            }
        }
        connected.close();
        return false;
    }

    private synchronized void failed(LockException e) {
        connecting = false;
        failure = e;
        scheduleRetry();
    }

    /** Stops connecting and closes the internal client; a connect in flight closes what it opens. Idempotent. */
    void close() {
        DefaultLockClient open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (retry != null) {
                retry.cancel();
            }
            open = client;
        }
        if (open != null) {
            open.close();
        }
    }

    @Override
    public String toString() {
        return shown;
    }
}
