package io.latchkey.spi;

import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a kind's {@link Script}s on one Redis of the client ({@link LockServer#executor()}): by
 * SHA, sending the text once on {@code NOSCRIPT}, on the client's shared connection. Every call
 * completes on an I/O thread within the command timeout, failing with a {@code LockException}
 * that names the lock, typed as lock-core types every failure of a Redis call. Thread-safe; never blocks.
 */
public interface ScriptRunner {

    /**
     * Runs a script.
     *
     * @param lockName the lock the call is for, for error messages
     * @param script the script
     * @param type how to read the reply
     * @param keys the KEYS of the script
     * @param args the ARGV of the script
     * @param <T> the reply type
     * @return the reply
     */
    <T> CompletableFuture<T> eval(String lockName, Script script, ScriptOutputType type, String[] keys, String... args);

    /**
     * Runs a script with {@code WAIT replicas timeout} right behind it on the same connection, for
     * a grant that the configured {@code ReplicaAcknowledgement} asks replicas to acknowledge;
     * the acknowledgement costs the replicas' time, not a round trip. A server that refuses
     * {@code WAIT} is asked no more, and its acknowledgements are empty.
     *
     * @param lockName the lock the call is for, for error messages
     * @param script the script
     * @param type how to read the reply
     * @param replicas how many replicas to wait for
     * @param timeout how long {@code WAIT} may block, at least a millisecond
     * @param keys the KEYS of the script
     * @param args the ARGV of the script
     * @param <T> the reply type
     * @return the reply, as soon as it is back, and the replicas' acknowledgement of its writes
     */
    <T> CompletableFuture<Replicated<T>> evalReplicated(String lockName, Script script, ScriptOutputType type,
                                                        int replicas, Duration timeout, String[] keys, String... args);

    /**
     * A script's reply and the replicas' acknowledgement of its writes.
     *
     * @param reply the script's reply
     * @param acknowledged completes with the number of replicas that acknowledged, or empty where
     *     none was asked for (the server refuses {@code WAIT}); fails with a {@code LockException}
     *     if the answer of {@code WAIT} was lost
     * @param <T> the reply type
     */
    record Replicated<T>(T reply, CompletableFuture<OptionalLong> acknowledged) {

        private static final CompletableFuture<OptionalLong> NOT_ASKED = CompletableFuture.completedFuture(OptionalLong.empty());

        /**
         * @param reply a reply for which no acknowledgement was asked
         * @param <T> the reply type
         * @return the reply with an empty acknowledgement
         */
        public static <T> Replicated<T> unacknowledged(T reply) {
            return new Replicated<>(reply, NOT_ASKED);
        }
    }
}
