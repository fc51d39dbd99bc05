package io.latchkey;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.testing.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A holder whose JVM dies with kill -9 cannot unlock or renew: its lock must become free once
 * the watchdog lease runs out, and not before the holder stops renewing.
 */
class CrashedHolderTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void lockOfAKilledHolderIsFreeOnceItsLeaseRunsOut() throws Exception {
        String name = "latchkey-test:crashed-holder:" + UUID.randomUUID();
        Process holder = startHolder(name);
        // This side only waits and takes the lock: roomy timings, so a loaded machine cannot fail it.
        try (LockClient client = LockClient.create(LockConfig.builder().address(redis.uri())
                .watchdogTimeout(Duration.ofSeconds(10)).commandTimeout(Duration.ofSeconds(2)).build())) {
            DistributedLock lock = client.getLock(name);
            awaitLocked(holder);

            // The child's watchdog keeps the hold past its first lease.
            long observeUntil = System.nanoTime() + WATCHDOG_TIMEOUT.plusMillis(500).toNanos();
            while (System.nanoTime() < observeUntil) {
                assertFalse(lock.tryLock(Duration.ofMillis(100)), "the live holder's lock was free");
            }

            holder.destroyForcibly();
            assertTrue(holder.waitFor(10, TimeUnit.SECONDS), "the holder did not die");
            long start = System.nanoTime();
            assertTrue(lock.tryLock(WATCHDOG_TIMEOUT.multipliedBy(5)), "the dead holder's lock never became free");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waited < WATCHDOG_TIMEOUT.plus(MARGIN).toMillis(),
                    "the lease should run out within watchdogTimeout of the kill, took " + waited + " ms");
            lock.unlock();
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Process startHolder(String name) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = List.of(java.toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                HolderMain.class.getName(),
                redis.uri(), name, Long.toString(WATCHDOG_TIMEOUT.toMillis()));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads the child's output until it says it holds the lock; keeps draining it afterwards. */
    private static void awaitLocked(Process holder) throws Exception {
        CompletableFuture<Void> locked = new CompletableFuture<>();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.equals(HolderMain.LOCKED)) {
                        locked.complete(null);
                    }
                }
                locked.completeExceptionally(new IllegalStateException("the holder exited before locking"));
            } catch (IOException e) {
                locked.completeExceptionally(e);
            }
        }, "holder-output");
        reader.setDaemon(true);
        reader.start();
        try {
            locked.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            synchronized (output) {
                throw new AssertionError("the holder did not lock; its output:\n" + output, e);
            }
        }
    }
}
