package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.HeldLock;
import io.latchkey.LockClient;
import io.latchkey.LockConnectionException;
import io.latchkey.LockException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The application's client when {@code latchkey.startup.fail-if-unreachable=false} and Redis could
 * not be reached at the start: it tries to make the client again every {@link #RETRY_INTERVAL}, on
 * a thread of its own that ends once the client is made; from then on every call goes to that
 * client, which reconnects by itself after later outages.
 *
 * <p>Until the client is made, every method that gives a lock throws {@link LockConnectionException}
 * naming the last attempt's failure, as a call on a lock does while a client has lost Redis. No
 * lock is made before there is a client to make it: a stand-in would have to forward every
 * method of every lock kind, and could not be the lock that its holds name
 * ({@code LockHold.lock()}). An application that takes its locks where it uses them, as
 * {@code @Locked} does, sees no difference once Redis is back.
 *
 * <p>After the start, every {@link LockException} is tried again: a Redis that comes back may refuse
 * for a while (still loading its data, say), and the attempts log each new failure. Only a
 * failure of another kind, which no waiting mends, ends the attempts. Thread-safe.
 */
final class ConnectingLockClient implements LockClient {

    /** As far apart as the client's own reconnects at most: a lock client is useless while disconnected. */
    static final Duration RETRY_INTERVAL = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(ConnectingLockClient.class);

    private final Supplier<LockClient> connect;
    private final String redis;
    /** One thread, for the attempts only; it ends with them. */
    private final ScheduledThreadPoolExecutor attempts;
    /** The client once made; read without the monitor by every call. */
    private volatile @Nullable LockClient client;
    /** Guarded by this: why the last attempt failed. */
    private RuntimeException failure;
    /** Guarded by this: whether that failure ended the attempts. */
    private boolean gaveUp;
    /** Guarded by this. */
    private boolean closed;

    private ConnectingLockClient(Supplier<LockClient> connect, String redis, LockConnectionException failure) {
        this.connect = connect;
        this.redis = redis;
        this.failure = failure;
        this.attempts = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "latchkey-connect");
            thread.setDaemon(true);
            return thread;
        });
        // close() cancels the next attempt instead of letting it run on a closed client.
        attempts.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Makes the client now if Redis can be reached, or else one that goes on trying.
     *
     * <p>Only an unreachable Redis ({@link LockConnectionException}) is waited for at the start: a
     * Redis that answers and refuses (credentials, permissions), or a configuration that cannot
     * work, still fails the start, where the deployment shows it.
     *
     * @param connect makes a connected client, as {@link LockClient#create(io.latchkey.LockConfig)}; not null
     * @param redis where Redis is, without credentials, for messages; not null
     * @return the client {@code connect} made, or one that makes it once Redis can be reached
     * @throws RuntimeException what {@code connect} throws for anything but an unreachable Redis
     */
    static LockClient connect(Supplier<LockClient> connect, String redis) {
        Objects.requireNonNull(redis, "redis");
        try {
            return connect.get();
        } catch (LockConnectionException e) {
            log.warn("Redis at {} cannot be reached; the application starts without it (latchkey.startup.fail-if-unreachable=false), "
                    + "lock calls fail until the client connects, tried every {} ms: {}", redis, RETRY_INTERVAL.toMillis(), e.getMessage());
            ConnectingLockClient client = new ConnectingLockClient(connect, redis, e);
            client.scheduleAttempt();
            return client;
        }
    }

    private void scheduleAttempt() {
        try {
            attempts.schedule(this::attempt, RETRY_INTERVAL.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closedMeanwhile) {
            // close() stopped the attempts
        }
    }

    private void attempt() {
        LockClient made;
        try {
            made = connect.get();
        } catch (LockException e) {
            failed(e, false);
            scheduleAttempt();
            return;
        } catch (RuntimeException e) {
            failed(e, true);
            attempts.shutdown();
            return;
        }
        boolean keep;
        synchronized (this) {
            keep = !closed;
            if (keep) {
                client = made;
            }
        }
        attempts.shutdown();
        if (keep) {
            log.info("connected to Redis at {}", redis);
        } else {
            made.close(); // made while the application closed
        }
    }

    /** Logs a failure unlike the one before (a steady failure once), and keeps it for the calls. */
    private void failed(RuntimeException e, boolean endsAttempts) {
        boolean news;
        synchronized (this) {
            news = !Objects.equals(failure.getMessage(), e.getMessage());
            failure = e;
            gaveUp = endsAttempts;
        }
        if (endsAttempts) {
            log.error("the LockClient for {} cannot be made; lock calls fail until the application restarts", redis, e);
        } else if (news) {
            log.warn("still not connected to Redis at {}: {}", redis, e.getMessage());
        }
    }

    /** {@return the client, once made} @throws LockConnectionException while it is not */
    private LockClient client() {
        LockClient made = client;
        if (made != null) {
            return made;
        }
        synchronized (this) {
            if (client != null) {
                return client; // made since the read above
            }
            if (closed) {
                throw new IllegalStateException("the LockClient is closed");
            }
            if (gaveUp) {
                throw new IllegalStateException("the LockClient for " + redis + " could not be made: " + failure.getMessage(), failure);
            }
            throw new LockConnectionException("not connected to Redis yet (latchkey.startup.fail-if-unreachable=false), the last attempt "
                    + "failed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public DistributedLock getLock(String name) {
        return client().getLock(name);
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return client().getFairLock(name);
    }

    @Override
    public DistributedLock getRedLock(String name) {
        return client().getRedLock(name);
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        return client().getReadWriteLock(name);
    }

    @Override
    public DistributedSemaphore getSemaphore(String name, int permits) {
        return client().getSemaphore(name, permits);
    }

    @Override
    public DistributedLock getMultiLock(DistributedLock... locks) {
        return client().getMultiLock(locks);
    }

    /** {@return the client's holds once it is made; none before, as nothing can be held without Redis} */
    @Override
    public List<HeldLock> heldLocks() {
        LockClient made = client;
        return made != null ? made.heldLocks() : List.of();
    }

    /** Stops the attempts (one under way closes what it makes) and closes the client if it was made. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        attempts.shutdown();
        LockClient made = client;
        if (made != null) {
            made.close();
        }
    }

    @Override
    public String toString() {
        LockClient made = client;
        return made != null ? made.toString() : "LockClient{connecting to " + redis + '}';
    }
}
