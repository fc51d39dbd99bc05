package io.latchkey.internal.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs commands and scripts on one shared, multiplexed Redis connection.
 *
 * <p>Every call returns a future that completes on an I/O thread within the command timeout
 * (Lettuce's own command timeout bounds it), failing with a {@code LockException} that names the
 * lock. Scripts run by SHA; a {@code NOSCRIPT} reply (a restarted or flushed server) sends the
 * script text once, which also caches it again. Thread-safe.
 */
public final class RedisExecutor {

    private final RedisClusterAsyncCommands<String, String> commands;
    private final Duration commandTimeout;
    private final String description;

    /**
     * @param commands async commands of a standalone or cluster connection
     * @param commandTimeout the timeout the connection enforces, for messages
     * @param description where this executor points, for logs
     */
    public RedisExecutor(RedisClusterAsyncCommands<String, String> commands, Duration commandTimeout, String description) {
        this.commands = commands;
        this.commandTimeout = commandTimeout;
        this.description = description;
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
    public <T> CompletableFuture<T> eval(String lockName, Script script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> bySha = commands.<T>evalsha(script.sha1(), type, keys, args).toCompletableFuture();
        return bySha.handle((reply, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(reply);
            }
            if (RedisFailures.unwrap(failure) instanceof RedisNoScriptException) {
                return commands.<T>eval(script.text(), type, keys, args).toCompletableFuture();
            }
            return CompletableFuture.<T>failedFuture(failure);
        }).thenCompose(Function.identity()).exceptionallyCompose(failure -> failed(lockName, failure));
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
        CompletableFuture<T> reply = command.apply(commands).toCompletableFuture();
        return reply.exceptionallyCompose(failure -> failed(lockName, failure));
    }

    /** @return the bound on one round trip */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    private <T> CompletableFuture<T> failed(String lockName, Throwable failure) {
        return CompletableFuture.failedFuture(RedisFailures.toLockException(lockName, commandTimeout, failure));
    }

    @Override
    public String toString() {
        return "RedisExecutor{" + description + '}';
    }
}
