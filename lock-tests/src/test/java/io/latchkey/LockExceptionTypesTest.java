package io.latchkey;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import io.latchkey.topology.CapturedLog;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a caller catches when Redis fails, against real servers: {@link LockTimeoutException}
 * while Redis is paused, {@link LockConnectionException} once it is killed,
 * {@link LockRefusedException} when Redis answers with an error, and never a password in any
 * message, however deep in the causes.
 */
class LockExceptionTypesTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
    /** Has '@', '/' and ':' in it, which a URI must encode. */
    private static final String SECRET = "s3cr:t@/x";
    private static final String ENCODED_SECRET = URLEncoder.encode(SECRET, StandardCharsets.UTF_8);

    private static RedisServer redis;

    private String name;

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

    @BeforeEach
    void nameTheLock() {
        name = "latchkey-test:exception-types:" + UUID.randomUUID();
    }

    private static LockClient newClient(String uri) {
        return LockClient.create(LockConfig.builder().address(uri).commandTimeout(COMMAND_TIMEOUT).build());
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollInSameThread();
    }

    /** @return the cause with which the future failed */
    private static Throwable failureOf(CompletableFuture<?> future) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        return failed.getCause();
    }

    @Test
    void redisPausedFailsEveryCallWithLockTimeoutException() throws Exception {
        try (LockClient client = newClient(redis.uri())) {
            DistributedLock lock = client.getLock(name);
            DistributedLock held = client.getLock(name + ":held");
            held.lock();

            redis.pause();
            try {
                LockTimeoutException acquire = assertThrows(LockTimeoutException.class, lock::lock);
                assertTrue(acquire.getMessage().contains(name), "names the lock: " + acquire.getMessage());
                assertThrows(LockTimeoutException.class, () -> lock.tryLock(Duration.ofSeconds(5)));
                assertThrows(LockTimeoutException.class, lock::isLocked);
                assertThrows(LockTimeoutException.class, lock::forceUnlock);
                LockTimeoutException release = assertThrows(LockTimeoutException.class, held::unlock);
                assertTrue(release.getMessage().contains("need not retry"), release.getMessage());
                assertInstanceOf(LockTimeoutException.class, failureOf(lock.lockAsync(7)));
            } finally {
                redis.resume();
            }

            // The timed-out acquires are undone and the release completed once Redis answers.
            within(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(LockException.class).until(() -> !held.isLocked());
            within(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(LockException.class).until(lock::tryLock);
            lock.unlock();
        }
    }

    @Test
    void redisKilledFailsEveryCallWithLockConnectionException() {
        try (RedisServer server = RedisServer.start(); LockClient client = newClient(server.uri())) {
            DistributedLock lock = client.getLock(name);
            DistributedLock held = client.getLock(name + ":held");
            held.lock();

            server.kill();
            LockConnectionException acquire = assertThrows(LockConnectionException.class, lock::lock);
            assertTrue(acquire.getMessage().contains(name), "names the lock: " + acquire.getMessage());
            assertThrows(LockConnectionException.class, () -> lock.tryLock(Duration.ofSeconds(5)));
            assertThrows(LockConnectionException.class, lock::isLocked);
            assertThrows(LockConnectionException.class, held::unlock);
            assertInstanceOf(LockConnectionException.class, failureOf(lock.lockAsync(7)));
            LockConnectionException connect = assertThrows(LockConnectionException.class, () -> newClient(server.uri()));
            assertTrue(connect.getMessage().contains("cannot connect"), connect.getMessage());
        }
    }

    @Test
    void aKeyOfAnotherTypeUnderTheLocksNameFailsWithLockRefusedException() throws Exception {
        redis.command("SET", name, "not a lock");
        try (LockClient client = newClient(redis.uri())) {
            for (DistributedLock lock : List.of(client.getLock(name), client.getFairLock(name))) {
                LockRefusedException refused = assertThrows(LockRefusedException.class, lock::lock, lock.toString());
                assertTrue(refused.getMessage().contains("WRONGTYPE"), "quotes Redis's reply: " + refused.getMessage());
                assertTrue(refused.getMessage().contains(name), "names the lock: " + refused.getMessage());
                assertThrows(LockRefusedException.class, () -> lock.tryLock(Duration.ofSeconds(1)), lock.toString());
                assertInstanceOf(LockRefusedException.class, failureOf(lock.lockAsync(7)), lock.toString());
                // Redis answered, so this is no unknown outcome and no "not held" either.
                assertThrows(LockRefusedException.class, lock::unlock, lock.toString());
                assertThrows(LockRefusedException.class, lock::getHoldCount, lock.toString());
            }
        }
        assertEquals("not a lock", redis.command("GET", name), "the key is left as it was");
    }

    @Test
    void noMessageShowsThePasswordOfAClientWhoseServerIsDown() throws Exception {
        try (RedisServer server = RedisServer.start("--requirepass", SECRET);
             CapturedLog log = new CapturedLog()) {
            String uri = "redis://:" + ENCODED_SECRET + "@" + server.host() + ":" + server.port();
            LockClient client = newClient(uri);
            List<Throwable> failures = new ArrayList<>();
            try {
                DistributedLock lock = client.getLock(name);
                DistributedLock held = client.getLock(name + ":held");
                held.lock(); // the password is right: the client works
                assertTrue(held.isHeldByCurrentThread());

                server.kill();
                failures.add(assertThrows(LockException.class, lock::lock));
                failures.add(assertThrows(LockException.class, held::unlock));
                failures.add(assertThrows(LockException.class, lock::isLocked));
                failures.add(failureOf(lock.lockAsync(7)));
                failures.add(assertThrows(LockException.class, () -> newClient(uri)));
                failures.add(assertThrows(LockException.class, () -> LockClient.create(uri)));
                assertNoSecret(List.of(client.toString(), lock.toString()), failures, log);
            } finally {
                client.close();
            }
        }
    }

    @Test
    void noMessageOrLogLineShowsThePasswordOfARedLockMaster() throws Exception {
        try (RedisServers masters = RedisServers.start(3, "--requirepass", SECRET);
             CapturedLog log = new CapturedLog()) {
            String[] uris = masters.servers().stream()
                    .map(master -> "redis://default:" + ENCODED_SECRET + "@" + master.host() + ":" + master.port())
                    .toArray(String[]::new);
            masters.get(2).kill(); // so the client connects to it in the background, and says so
            LockConfig config = LockConfig.builder().redLockAddresses(uris).commandTimeout(COMMAND_TIMEOUT).build();
            List<Throwable> failures = new ArrayList<>();
            try (LockClient client = LockClient.create(config)) {
                DistributedLock lock = client.getRedLock(name);
                lock.lock(); // two of three masters grant
                lock.unlock();

                masters.get(1).kill();
                failures.add(assertThrows(LockException.class, lock::lock));
                failures.add(assertThrows(LockException.class, lock::isLocked));
                failures.add(assertThrows(LockException.class, () -> LockClient.create(config)));
                assertTrue(log.hasLine("RedLock master", "cannot be reached"), "the unreachable master was logged");
                assertNoSecret(List.of(client.toString(), lock.toString(), config.toString()), failures, log);
            }
        }
    }

    private static void assertNoSecret(List<String> shown, List<Throwable> failures, CapturedLog log) {
        List<String> texts = new ArrayList<>(shown);
        for (Throwable failure : failures) {
            causesOf(failure).forEach(cause -> texts.add(cause.getClass().getName() + ": " + cause.getMessage()));
        }
        for (String secret : List.of(SECRET, ENCODED_SECRET, "s3cr")) {
            for (String text : texts) {
                assertFalse(text.contains(secret), "a password shows in: " + text);
            }
            assertFalse(log.hasLine(secret), "a password shows in the log");
        }
    }

    /** @return the failure, every cause and every suppressed exception along the way */
    private static List<Throwable> causesOf(Throwable failure) {
        List<Throwable> found = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>(List.of(failure));
        while (!pending.isEmpty()) {
            Throwable next = pending.removeFirst();
            if (seen.add(next)) {
                found.add(next);
                if (next.getCause() != null) {
                    pending.add(next.getCause());
                }
                pending.addAll(List.of(next.getSuppressed()));
            }
        }
        return found;
    }
}
