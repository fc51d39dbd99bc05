package io.latchkey.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Redis ceiling of the plain-lock scenarios that run it: Latchkey's own acquire and release
 * scripts, one call each per acquisition, sent by SHA over one Lettuce connection, with nothing of
 * a lock client around them: no record of holds, no watchdog (the lease outlasts a run), no
 * settling of lost answers, no hand-off, and no waiting for a release: a try refused because
 * another owner holds the lock is sent again at once. That spins, so it runs only where a refusal
 * is rare (one thread; 32 threads over 10,000 locks), and stands for what the same two round trips
 * cost with no client machinery. The plain lock only. Thread-safe.
 */
final class RawLettuceBackend implements LockBackend {

    private static final String SCRIPTS = "io/latchkey/internal/lock/";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> redis;
    private final String acquireSha;
    private final String releaseSha;
    private final String leaseMillis;
    /** Prefixes every owner's field, as a Latchkey client's id does. */
    private final String clientId = UUID.randomUUID().toString();
    private final AtomicLong lastCall = new AtomicLong();

    /** @param lease every hold's lease: longer than a run, since nothing renews it */
    RawLettuceBackend(Duration lease) {
        this.client = RedisClient.create(BenchEnvironment.redisUri());
        this.connection = client.connect();
        this.redis = connection.async();
        this.acquireSha = connection.sync().scriptLoad(script("acquire.lua"));
        this.releaseSha = connection.sync().scriptLoad(script("release.lua"));
        this.leaseMillis = Long.toString(lease.toMillis());
    }

    private static String script(String name) {
        try (InputStream in = RawLettuceBackend.class.getClassLoader().getResourceAsStream(SCRIPTS + name)) {
            return new String(Objects.requireNonNull(in, name).readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public BenchLock plain(String name) {
        // A key tag of the name's own, so that the lock, its counter and its channel share a slot.
        String lock = "bench:raw:{" + name + "}";
        return new RawLock(lock, lock + ":fence", lock + ":channel");
    }

    @Override
    public BenchLock fair(String name) {
        throw only();
    }

    @Override
    public BenchLock red(String name) {
        throw only();
    }

    @Override
    public BenchSemaphore semaphore(String name, int permits) {
        throw only();
    }

    @Override
    public ReadWrite readWrite(String name) {
        throw only();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }

    private static UnsupportedOperationException only() {
        return new UnsupportedOperationException("raw Lettuce runs the uncontended and many-keys scenarios only");
    }

    /** One lock's keys, and the two script calls on them. */
    private final class RawLock implements BenchLock {

        private final String lock;
        private final String counter;
        private final String channel;

        RawLock(String lock, String counter, String channel) {
            this.lock = lock;
            this.counter = counter;
            this.channel = channel;
        }

        @Override
        public void lock() {
            lockAsync(Thread.currentThread().getId()).join();
        }

        @Override
        public boolean tryLock() {
            return tryOnce(field(Thread.currentThread().getId())).toCompletableFuture().join();
        }

        @Override
        public void unlock() {
            unlockAsync(Thread.currentThread().getId()).join();
        }

        @Override
        public CompletableFuture<Void> lockAsync(long owner) {
            String field = field(owner);
            return tryOnce(field).thenCompose(acquired -> acquired ? CompletableFuture.<Void>completedFuture(null)
                    : lockAsync(owner)).toCompletableFuture();
        }

        private CompletionStage<Boolean> tryOnce(String field) {
            String[] keys = {lock, counter};
            return redis.<List<Object>>evalsha(acquireSha, ScriptOutputType.MULTI, keys, leaseMillis, field, nextCall(), "")
                    .thenApply(answer -> (Long) answer.get(0) == 1L);
        }

        @Override
        public CompletableFuture<Void> unlockAsync(long owner) {
            String[] keys = {lock, channel};
            return redis.<Long>evalsha(releaseSha, ScriptOutputType.INTEGER, keys, field(owner), "publish", nextCall(), "release")
                    .thenAccept(left -> {
                        if (left == null) {
                            throw new IllegalMonitorStateException("not held: " + lock);
                        }
                    }).toCompletableFuture();
        }

        @Override
        public CompletableFuture<Boolean> isLockedAsync() {
            return redis.exists(lock).thenApply(count -> count > 0).toCompletableFuture();
        }

        private String field(long owner) {
            return clientId + ':' + owner;
        }

        private String nextCall() {
            return Long.toString(lastCall.incrementAndGet(), Character.MAX_RADIX);
        }
    }
}
