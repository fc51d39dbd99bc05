package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.Lease;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The server, clients and kinds of the short-outage tests ({@link ShortOutageTest}, the outages
 * ridden out, and {@link ShortOutageBoundsTest}, the failures' time bounds): one Redis server
 * with the debug command, restarted on its port after each test that stopped it.
 */
abstract class ShortOutageFixture {

    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    static final Duration WAIT = Duration.ofSeconds(8);
    /** As short as the README's "restart of a few hundred milliseconds": a longer one only costs time. */
    private static final Duration OUTAGE = Duration.ofMillis(500);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final AtomicInteger NAMES = new AtomicInteger();
    /** Owners of the async forms, which name their owner. */
    private static final java.util.concurrent.atomic.AtomicLong ASYNC_OWNERS = new java.util.concurrent.atomic.AtomicLong(1L << 40);

    static RedisServer server;
    private static LockClient client;
    private static LockClient other;
    private static LockClient handingOff;
    /** The restart that {@link #stopForAnOutage()} scheduled, if any. */
    private static volatile CompletableFuture<Void> pendingRestart = CompletableFuture.completedFuture(null);
    private static LockClient otherHandingOff;

    /** Each kind's wait, blocking and async, on a new lock per test. */
    enum Kind {
        PLAIN, PLAIN_WITH_LOCAL_HAND_OFF, FAIR, READ, WRITE, SEMAPHORE, MULTI;

        /** @return a client for this kind, closed by the test class */
        LockClient client() {
            return this == PLAIN_WITH_LOCAL_HAND_OFF ? handingOff : client;
        }

        /** @return another client for this kind, closed by the test class */
        LockClient other() {
            return this == PLAIN_WITH_LOCAL_HAND_OFF ? otherHandingOff : other;
        }

        LockConfig.Builder config() {
            LockConfig.Builder builder = LockConfig.builder().address(server.uri()).commandTimeout(COMMAND_TIMEOUT);
            return this == PLAIN_WITH_LOCAL_HAND_OFF ? builder.localHandOff() : builder;
        }

        Acquirer on(LockClient lockClient, String name) {
            return switch (this) {
                case PLAIN, PLAIN_WITH_LOCAL_HAND_OFF -> Acquirer.of(lockClient.getLock(name));
                case FAIR -> Acquirer.of(lockClient.getFairLock(name));
                case READ -> Acquirer.of(lockClient.getReadWriteLock(name).readLock());
                case WRITE -> Acquirer.of(lockClient.getReadWriteLock(name).writeLock());
                case SEMAPHORE -> Acquirer.of(lockClient.getSemaphore(name, 1));
                case MULTI -> Acquirer.of(lockClient.getMultiLock(lockClient.getLock(name + "-a"), lockClient.getLock(name + "-b")));
            };
        }
    }

    interface Acquirer {
        Optional<? extends Lease> acquire(Duration wait) throws InterruptedException;

        CompletableFuture<? extends Optional<? extends Lease>> acquireAsync(Duration wait);

        static Acquirer of(DistributedLock lock) {
            return new Acquirer() {
                @Override
                public Optional<? extends Lease> acquire(Duration wait) throws InterruptedException {
                    return lock.tryAcquire(wait);
                }

                @Override
                public CompletableFuture<? extends Optional<? extends Lease>> acquireAsync(Duration wait) {
                    return lock.tryAcquireAsync(wait, LEASE, ASYNC_OWNERS.incrementAndGet());
                }
            };
        }

        static Acquirer of(DistributedSemaphore semaphore) {
            return new Acquirer() {
                @Override
                public Optional<? extends Lease> acquire(Duration wait) throws InterruptedException {
                    return semaphore.tryAcquire(wait);
                }

                @Override
                public CompletableFuture<? extends Optional<? extends Lease>> acquireAsync(Duration wait) {
                    return semaphore.tryAcquireAsync(wait, LEASE);
                }
            };
        }
    }

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start("--enable-debug-command", "yes");
        client = LockClient.create(Kind.PLAIN.config().build());
        other = LockClient.create(Kind.PLAIN.config().build());
        handingOff = LockClient.create(Kind.PLAIN_WITH_LOCAL_HAND_OFF.config().build());
        otherHandingOff = LockClient.create(Kind.PLAIN_WITH_LOCAL_HAND_OFF.config().build());
    }

    @AfterAll
    static void stopRedis() {
        for (LockClient open : new LockClient[] {otherHandingOff, handingOff, other, client}) {
            if (open != null) {
                open.close();
            }
        }
        server.close();
    }

    @AfterEach
    void redisRunsAgain() {
        // A test that failed early must not race the restart it scheduled.
        pendingRestart.exceptionally(failure -> null).join();
        if (!server.isRunning()) {
            server.restart();
        }
        server.command("CONFIG", "SET", "key-load-delay", "0");
    }

    static String newName(Kind kind) {
        return "outage-" + kind.name().toLowerCase(java.util.Locale.ROOT) + "-" + NAMES.incrementAndGet();
    }

    /** Stops Redis now and starts it again on the same port after {@link #OUTAGE}. */
    static CompletableFuture<Void> stopForAnOutage() {
        server.stop();
        CompletableFuture<Void> restart = CompletableFuture.runAsync(server::restart,
                CompletableFuture.delayedExecutor(OUTAGE.toMillis(), TimeUnit.MILLISECONDS));
        pendingRestart = restart;
        return restart;
    }

    /**
     * Holds Redis in {@code LOADING} for half a second or so: {@code DEBUG RELOAD} of 1,500 keys,
     * each loaded with a delay, answering other clients with {@code LOADING} in between.
     *
     * @return completes when the reload is over
     */
    static CompletableFuture<Object> loadForHalfASecond() {
        server.command("DEBUG", "POPULATE", "1500", "outage-filler");
        server.command("CONFIG", "SET", "loading-process-events-interval-bytes", "1024");
        server.command("CONFIG", "SET", "key-load-delay", "300");
        CompletableFuture<Object> reload = CompletableFuture.supplyAsync(() -> server.command("DEBUG", "RELOAD"));
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> server.info("persistence", "loading").orElse("0").equals("1"));
        return reload;
    }

    /** Nothing of the acquisition is left: another client gets the lock at once. */
    static void nothingLeftHeld(Kind kind, String name) {
        Acquirer elsewhere = kind.on(kind.other(), name);
        // The other client may still be reconnecting after a restart: what counts is "free", not "at once".
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
            Optional<? extends Lease> again = elsewhere.acquire(Duration.ZERO);
            assertThat(again).as("another client gets the lock").isPresent();
            again.get().close();
        });
    }
}
