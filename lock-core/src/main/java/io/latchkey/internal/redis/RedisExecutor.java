package io.latchkey.internal.redis;

import io.latchkey.spi.Script;
import io.latchkey.spi.ScriptRunner;
import io.latchkey.spi.Ticker;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs commands and scripts on one shared, multiplexed Redis connection.
 *
 * <p>Every call returns a future that completes on an I/O thread within the command timeout
 * (Lettuce's own command timeout bounds it), failing with a {@code LockException} that names the
 * lock, of the type {@link LockExceptions#translate} gives it. Scripts run by SHA; a
 * {@code NOSCRIPT} reply (a restarted or flushed server) sends the script text once, which also
 * caches it again. Thread-safe.
 */
public final class RedisExecutor implements ScriptRunner {

    private static final Logger log = LoggerFactory.getLogger(RedisExecutor.class);
    private static final long FIRST_RETRY_DELAY_MILLIS = 5;
    private static final CompletableFuture<OptionalLong> NOT_ASKED = CompletableFuture.completedFuture(OptionalLong.empty());
    private static final long MAX_RETRY_DELAY_MILLIS = 100;

    private final RedisClusterAsyncCommands<String, String> commands;
    private final Duration commandTimeout;
    private final String description;
    private final ToIntFunction<String> shardOfKey;
    /** Retries TRYAGAIN replies and unsent calls in a Cluster; null for a single server. */
    private final @Nullable Retries tryAgainRetries;
    /** Bounds those retries by the command timeout; null where they cannot occur. */
    private final @Nullable Ticker ticker;
    /** The cluster connection, whose node connections carry WAIT; null for a single server. */
    private final @Nullable StatefulRedisClusterConnection<String, String> cluster;
    /** Set once the server refused WAIT: acquisitions go on without acknowledgement from then on. */
    private final AtomicBoolean waitRefused = new AtomicBoolean();

    /**
     * An executor for one server, where any keys may share a script call.
     *
     * @param commands async commands of a standalone connection
     * @param commandTimeout the timeout the connection enforces, for messages
     * @param description where this executor points, for logs; any URI in it is shown redacted
     */
    public RedisExecutor(RedisClusterAsyncCommands<String, String> commands, Duration commandTimeout, String description) {
        this(commands, commandTimeout, description, key -> 0, null, null, null);
    }

    private RedisExecutor(RedisClusterAsyncCommands<String, String> commands, Duration commandTimeout, String description,
                          ToIntFunction<String> shardOfKey, @Nullable Timer retryScheduler, @Nullable Ticker ticker,
                          @Nullable StatefulRedisClusterConnection<String, String> cluster) {
        this.commands = commands;
        this.cluster = cluster;
        this.commandTimeout = commandTimeout;
        this.description = Redaction.inText(description);
        this.shardOfKey = shardOfKey;
        this.tryAgainRetries = retryScheduler == null || ticker == null ? null
                : new Retries(retryScheduler, ticker, FIRST_RETRY_DELAY_MILLIS, MAX_RETRY_DELAY_MILLIS);
        this.ticker = ticker;
    }

    /**
     * An executor for a Redis Cluster: script calls are batched per hash slot, and a
     * {@code TRYAGAIN} reply (a multi-key call on a slot that is being migrated, whose keys are
     * split between two nodes for a moment) is retried with a short back-off for as long as the
     * command timeout allows, and so is a call that Lettuce rejected unsent because its node's
     * connection was not up (a connection that had just opened, seen unusable for a moment on a
     * loaded machine; a slot without a master mid-failover). Redis did not run the call, so the
     * retry is safe.
     *
     * @param connection a cluster connection, which follows MOVED and ASK itself
     * @param commandTimeout the timeout the connection enforces
     * @param description where this executor points, for logs; any URI in it is shown redacted
     * @param retryScheduler the client's timer, which schedules the retries
     * @param ticker the client's clock, which the retries' deadline is read from
     * @return the executor
     */
    public static RedisExecutor forCluster(StatefulRedisClusterConnection<String, String> connection, Duration commandTimeout,
                                           String description, Timer retryScheduler, Ticker ticker) {
        return new RedisExecutor(connection.async(), commandTimeout, description, SlotHash::getSlot, retryScheduler, ticker,
                connection);
    }

    /**
     * Runs a script by SHA, falling back to its text on {@code NOSCRIPT}.
     *
     * @param lockName the lock the call is for, for error messages
     * @param script the script
     * @param type how to read the reply
     * @param keys the KEYS of the script
     * @param args the ARGV of the script
     * @param <T> the reply type
     * @return the reply
     */
    @Override
    public <T> CompletableFuture<T> eval(String lockName, Script script, ScriptOutputType type, String[] keys, String... args) {
        return this.<T>retryingPassingRefusals(() -> evalOnce(script, type, keys, args))
                .exceptionallyCompose(failure -> failed(lockName, failure));
    }

    private <T> CompletableFuture<T> evalOnce(Script script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> bySha = dispatch(() -> commands.<T>evalsha(script.sha1(), type, keys, args));
        return bySha.handle((reply, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(reply);
            }
            if (Failures.unwrap(failure) instanceof RedisNoScriptException) {
                return dispatch(() -> commands.<T>eval(script.text(), type, keys, args));
            }
            return CompletableFuture.<T>failedFuture(failure);
        }).thenCompose(Function.identity());
    }

    /**
     * Hands one command to the connection. Lettuce throws, rather than failing the future, when
     * the command cannot even be written (its timer stopped as the client closes): the command
     * never left, so its outcome is known, and the caller gets a failed future like any other.
     */
    private static <T> CompletableFuture<T> dispatch(Supplier<RedisFuture<T>> command) {
        try {
            return command.get().toCompletableFuture();
        } catch (RuntimeException notWritten) {
            return CompletableFuture.failedFuture(new Failures.NotSent(notWritten));
        }
    }

    private <T> CompletableFuture<T> retryingPassingRefusals(Supplier<CompletableFuture<T>> call) {
        Retries retries = tryAgainRetries;
        Ticker clock = ticker;
        if (retries == null || clock == null) {
            return call.get();
        }
        return retries.until(call, failure -> isTryAgain(failure) || Failures.wasRejectedUnsent(failure),
                clock.read() + commandTimeout.toNanos());
    }

    /**
     * Runs a script by SHA and sends {@code WAIT replicas timeout} right behind it on the same
     * connection (in a Cluster, the connection to the master of the first key's slot), before the
     * script's answer is back: the acknowledgement costs the replicas' time, not a round trip.
     * The returned future completes with the script's reply as soon as it is back; the
     * acknowledgement inside it completes when {@code WAIT} answers. On {@code NOSCRIPT} the text
     * and a second {@code WAIT} go together again. Where the server refuses {@code WAIT} (no ACL
     * permission, a renamed or forbidden command) the refusal is logged once at WARN and this
     * executor sends no more of them: the acknowledgement is then empty.
     *
     * @param lockName the lock the call is for, for error messages
     * @param script the script
     * @param type how to read the reply
     * @param replicas how many replicas to wait for
     * @param timeout how long {@code WAIT} may block, at least a millisecond
     * @param keys the KEYS of the script
     * @param args the ARGV of the script
     * @param <T> the reply type
     * @return the reply, and the number of replicas that acknowledged the script's writes (empty
     *     if the server refuses {@code WAIT}; failed with a {@code LockException} if its answer
     *     was lost)
     */
    @Override
    public <T> CompletableFuture<Replicated<T>> evalReplicated(String lockName, Script script, ScriptOutputType type,
                                                               int replicas, Duration timeout, String[] keys, String... args) {
        if (waitRefused.get()) {
            return this.<T>eval(lockName, script, type, keys, args).thenApply(Replicated::unacknowledged);
        }
        long timeoutMillis = Math.max(1, timeout.toMillis());
        CompletableFuture<Replicated<T>> sent = retryingPassingRefusals(() -> {
            RedisClusterAsyncCommands<String, String> waitOn = sameConnectionAs(keys[0]);
            CompletableFuture<T> bySha = dispatch(() -> commands.<T>evalsha(script.sha1(), type, keys, args));
            CompletableFuture<OptionalLong> acked = acknowledged(lockName, waitOn, replicas, timeoutMillis);
            return bySha.handle((reply, failure) -> {
                if (failure == null) {
                    return CompletableFuture.completedFuture(new Replicated<>(reply, acked));
                }
                if (Failures.unwrap(failure) instanceof RedisNoScriptException) {
                    CompletableFuture<T> byText = dispatch(() -> commands.<T>eval(script.text(), type, keys, args));
                    CompletableFuture<OptionalLong> again = acknowledged(lockName, waitOn, replicas, timeoutMillis);
                    return byText.thenApply(reply2 -> new Replicated<>(reply2, again));
                }
                return CompletableFuture.<Replicated<T>>failedFuture(failure);
            }).thenCompose(Function.identity());
        });
        return sent.exceptionallyCompose(failure -> failed(lockName, failure));
    }

    /**
     * The connection that carries a write of this key: the shared one for a single server; in a
     * Cluster, Lettuce's connection to the slot's master, which its routing writes the key to.
     * If that node connection is not open yet, the shared one is given: then {@code WAIT} goes
     * to a node Lettuce chooses, and at worst the acknowledgement counts another master's
     * replicas once.
     */
    private RedisClusterAsyncCommands<String, String> sameConnectionAs(String key) {
        if (cluster == null) {
            return commands;
        }
        RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            return commands;
        }
        CompletableFuture<StatefulRedisConnection<String, String>> node = cluster.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort());
        return node.isDone() && !node.isCompletedExceptionally() ? node.join().async() : commands;
    }

    private CompletableFuture<OptionalLong> acknowledged(String lockName, RedisClusterAsyncCommands<String, String> on,
                                                         int replicas, long timeoutMillis) {
        return dispatch(() -> on.waitForReplication(replicas, timeoutMillis)).handle((acks, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(OptionalLong.of(acks));
            }
            if (isRefusal(failure)) {
                if (waitRefused.compareAndSet(false, true)) {
                    log.warn("{} refuses WAIT ({}): locks are acquired without replica acknowledgement from now on",
                            description, Failures.unwrap(failure).getMessage());
                }
                return NOT_ASKED;
            }
            return CompletableFuture.<OptionalLong>failedFuture(failure);
        }).thenCompose(Function.identity()).exceptionallyCompose(failure -> failed(lockName, failure));
    }

    /** NOPERM from an ACL; "unknown command" where a managed service renamed or removed WAIT. */
    private static boolean isRefusal(Throwable failure) {
        Throwable cause = Failures.unwrap(failure);
        String message = String.valueOf(cause.getMessage());
        return cause instanceof RedisCommandExecutionException
                && (message.startsWith("NOPERM") || message.startsWith("ERR unknown command")
                        || message.contains("not allowed"));
    }

    private static boolean isTryAgain(Throwable failure) {
        Throwable cause = Failures.unwrap(failure);
        return cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).startsWith("TRYAGAIN");
    }

    /**
     * Runs one plain command.
     *
     * @param lockName the lock the call is for, for error messages
     * @param command the command, given the async API
     * @param <T> the reply type
     * @return the reply
     */
    public <T> CompletableFuture<T> call(String lockName, Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
        CompletableFuture<T> reply = retryingPassingRefusals(() -> dispatch(() -> command.apply(commands)));
        return reply.exceptionallyCompose(failure -> failed(lockName, failure));
    }

    /**
     * Tells which keys may go into one script call: in a Cluster only keys of one hash slot.
     *
     * @param key a key
     * @return its shard: the hash slot in a Cluster, the same value for every key otherwise
     */
    public int shardOf(String key) {
        return shardOfKey.applyAsInt(key);
    }

    /** @return the bound on one round trip */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    private <T> CompletableFuture<T> failed(String lockName, Throwable failure) {
        return CompletableFuture.failedFuture(LockExceptions.translate(lockName, commandTimeout, failure));
    }

    @Override
    public String toString() {
        return "RedisExecutor{" + description + '}';
    }
}
