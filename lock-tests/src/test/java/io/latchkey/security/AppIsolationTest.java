package io.latchkey.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.LockRefusedException;
import io.latchkey.RedisInspector;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.latchkey.topology.MinimalAcl;
import io.lettuce.core.RedisCommandExecutionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two applications on one Redis, each with its own key prefix and an ACL user confined to it as
 * the README's Minimal ACL says: neither can reset the other's fencing counters or publish on the
 * other's channels, and each locks its own names as usual. With the one fixed prefix of 0.2 every
 * application's user needed {@code ~latchkey:* &latchkey:*}, so any of them could do both to every
 * other (issue 27, finding 6).
 */
class AppIsolationTest {

    private static RedisServer redis;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void startRedisWithTwoApplications() {
        redis = RedisServer.start();
        List<String> commands = MinimalAcl.commands(MinimalAcl.PLAIN_WITH_HAND_OFF);
        redis.command(MinimalAcl.setUser("appa", MinimalAcl.rules("pa", "appa", "orders:*", commands)));
        redis.command(MinimalAcl.setUser("appb", MinimalAcl.rules("pb", "appb", "invoices:*", commands)));
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    private LockClient client(String user, String password, String prefix) {
        LockClient client = LockClient.create(LockConfig.builder().address(uri(user, password)).keyPrefix(prefix)
                .commandTimeout(Duration.ofSeconds(1)).build());
        opened.add(client);
        return client;
    }

    /** A raw connection of the user, as a hostile application would use it. */
    private RedisInspector connection(String user, String password) {
        RedisInspector connection = new RedisInspector(uri(user, password));
        opened.add(connection);
        return connection;
    }

    private static String uri(String user, String password) {
        return "redis://" + user + ":" + password + "@" + redis.host() + ":" + redis.port();
    }

    @Test
    void oneApplicationsUserCannotResetAnothersFencingCounterNorPublishOnItsChannels() throws Exception {
        String invoice = "invoices:7";
        LockHold billed = client("appb", "pb", "appb").getLock(invoice).acquire();
        LockKeys keysOfB = LockKeys.of(invoice, "appb");
        // With local hand-off the hold reserved a block of tokens: the counter is at the block's end.
        String counter = (String) redis.command("GET", keysOfB.fenceCounter());
        assertTrue(Long.parseLong(counter) >= billed.fencingToken(), "B's tokens come from B's counter: " + counter);

        RedisInspector a = connection("appa", "pa");
        RedisCommandExecutionException reset = assertThrows(RedisCommandExecutionException.class,
                () -> a.commands().set(keysOfB.fenceCounter(), "0"));
        assertTrue(reset.getMessage().startsWith("NOPERM"), reset.getMessage());
        RedisCommandExecutionException notice = assertThrows(RedisCommandExecutionException.class,
                () -> a.commands().publish(keysOfB.channel(), "!force:1"));
        assertTrue(notice.getMessage().startsWith("NOPERM"), notice.getMessage());
        RedisCommandExecutionException wake = assertThrows(RedisCommandExecutionException.class,
                () -> a.commands().publish(LockKeys.of(invoice, "appb").derived("read-channel"), "*"));
        assertTrue(wake.getMessage().startsWith("NOPERM"), wake.getMessage());
        // Nor by the names A may lock: B's lock hash and B's derived keys are not A's to touch.
        RedisCommandExecutionException hash = assertThrows(RedisCommandExecutionException.class,
                () -> a.commands().del(invoice));
        assertTrue(hash.getMessage().startsWith("NOPERM"), hash.getMessage());

        assertEquals(counter, redis.command("GET", keysOfB.fenceCounter()), "B's counter is as B left it");
        assertTrue(billed.isValid());
        billed.close();
    }

    @Test
    void aClientOfOneApplicationCannotLockAnothersNames() {
        LockClient a = client("appa", "pa", "appa");
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> a.getLock("invoices:7").lockAsync(1).get(5, TimeUnit.SECONDS));
        assertEquals(LockRefusedException.class, refused.getCause().getClass());
        assertTrue(refused.getCause().getMessage().contains("NOPERM"), refused.getCause().getMessage());
        // A name that would stand for one of its own derived keys is refused before Redis.
        assertThrows(IllegalArgumentException.class, () -> a.getLock("appa:fence:{0}"));
        assertThrows(IllegalArgumentException.class, () -> a.getLock("latchkey:fence:{0}"));
    }

    @Test
    void eachApplicationLocksItsOwnNamesWithWaitersWokenOnItsOwnChannels() throws Exception {
        for (String[] application : new String[][] {{"appa", "pa", "orders:1"}, {"appb", "pb", "invoices:1"}}) {
            String user = application[0];
            DistributedLock held = client(user, application[1], user).getLock(application[2]);
            DistributedLock awaited = client(user, application[1], user).getLock(application[2]);
            LockHold hold = held.acquire();
            assertTrue(hold.fencingToken() > 0);
            assertTrue(awaited.isLocked());
            CompletableFuture<Void> waiter = awaited.lockAsync(2);
            assertFalse(waiter.isDone());
            hold.close();
            waiter.get(5, TimeUnit.SECONDS);
            assertTrue(awaited.isHeldBy(2));
            awaited.unlockAsync(2).get(5, TimeUnit.SECONDS);
            assertNotNull(redis.command("GET", LockKeys.of(application[2], user).fenceCounter()), "the counter under its prefix");
            assertEquals(0L, redis.command("EXISTS", LockKeys.of(application[2]).fenceCounter()),
                    "nothing under the default prefix");
        }
    }
}
