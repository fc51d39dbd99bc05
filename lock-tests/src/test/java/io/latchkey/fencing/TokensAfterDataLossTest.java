package io.latchkey.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tokens never go backwards, also when Redis loses the fencing counter: for every kind that hands
 * out tokens (the plain lock with and without local hand-off, the fair lock, both sides of the
 * read-write lock, RedLock over three masters), holds are taken and their tokens recorded, then
 * the Redis behind the lock (every master, for RedLock) loses data, and a new hold's token must
 * exceed every token before. The losses: a restart without persistence (the fixture's servers
 * keep nothing on disk), {@code FLUSHALL}, and a counter set back to the value it had a few holds
 * earlier, as a failover to a replica that missed those holds leaves it. With tokens taken from
 * the counter alone, each of these hands out a token again.
 */
class TokensAfterDataLossTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long TIMEOUT_SECONDS = 10;

    private static RedisServers servers;

    private final List<LockClient> clients = new ArrayList<>();
    private String name;
    private long highest;

    /** What hands out the tokens, and on which of the servers. */
    enum Kind {
        PLAIN, PLAIN_WITH_LOCAL_HAND_OFF, FAIR, READ_WRITE, RED_LOCK;

        int serverCount() {
            return this == RED_LOCK ? 3 : 1;
        }

        LockConfig config(String[] uris) {
            LockConfig.Builder builder = LockConfig.builder().watchdogTimeout(LEASE);
            if (this == RED_LOCK) {
                return builder.redLockAddresses(uris).commandTimeout(Duration.ofMillis(600))
                        .redLockAttemptTimeout(Duration.ofMillis(400)).build();
            }
            builder.address(uris[0]).commandTimeout(Duration.ofSeconds(2));
            if (this != PLAIN_WITH_LOCAL_HAND_OFF) {
                builder.noLocalHandOff();
            }
            return builder.build();
        }

        /** @param hold the hold's number: the read-write lock takes even ones on its write side, odd ones on its read side */
        DistributedLock lock(LockClient client, String name, int hold) {
            return switch (this) {
                case PLAIN, PLAIN_WITH_LOCAL_HAND_OFF -> client.getLock(name);
                case FAIR -> client.getFairLock(name);
                case READ_WRITE -> hold % 2 == 0 ? client.getReadWriteLock(name).writeLock()
                        : client.getReadWriteLock(name).readLock();
                case RED_LOCK -> client.getRedLock(name);
            };
        }
    }

    @BeforeAll
    static void startServers() {
        servers = RedisServers.start(3);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    @BeforeEach
    void nameTheLock() {
        name = "latchkey-test:tokens-after-data-loss:" + UUID.randomUUID();
        highest = 0;
    }

    @AfterEach
    void closeClients() {
        closeAll();
        for (RedisServer server : servers.servers()) {
            if (!server.isRunning()) {
                server.restart();
            }
        }
    }

    private void closeAll() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aHoldAfterARestartWithoutPersistenceHasAGreaterTokenThanEveryHoldBefore(Kind kind) throws Exception {
        holdsBeforeTheLoss(kind);
        closeAll();
        for (RedisServer server : used(kind)) {
            server.kill();
            server.restart();
            assertThat(server.command("GET", FenceCounters.keyOf(name))).as("the counter after the restart").isNull();
        }
        holdsAfterTheLoss(kind, "after a restart without persistence");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aHoldAfterFlushallHasAGreaterTokenThanEveryHoldBefore(Kind kind) throws Exception {
        holdsBeforeTheLoss(kind);
        for (RedisServer server : used(kind)) {
            server.command("FLUSHALL");
        }
        holdsAfterTheLoss(kind, "after FLUSHALL");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aHoldAfterTheCounterWentBackHasAGreaterTokenThanEveryHoldBefore(Kind kind) throws Exception {
        Map<RedisServer, Object> earlier = holdsBeforeTheLoss(kind);
        for (RedisServer server : used(kind)) {
            assertThat(earlier.get(server)).as("the counter after the first holds").isNotNull();
            server.command("SET", FenceCounters.keyOf(name), (String) earlier.get(server));
        }
        holdsAfterTheLoss(kind, "after the counter went back");
    }

    private static List<RedisServer> used(Kind kind) {
        return servers.servers().subList(0, kind.serverCount());
    }

    /**
     * Holds on one client, one of them passed on to a second owner while it waits (a local
     * hand-off, with the plain lock's default), then holds on another client, each of which
     * begins in Redis.
     *
     * @return each server's counter as it was between the two clients' holds
     */
    private Map<RedisServer, Object> holdsBeforeTheLoss(Kind kind) throws Exception {
        LockClient first = client(kind);
        LockHold held = acquire(kind.lock(first, name, 0), 1, "the first hold");
        CompletableFuture<LockHold> waiting = kind.lock(first, name, 0).acquireAsync(2);
        held.close();
        record(waiting.get(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the hold passed on").close();

        Map<RedisServer, Object> counters = new HashMap<>();
        for (RedisServer server : used(kind)) {
            counters.put(server, server.command("GET", FenceCounters.keyOf(name)));
        }
        LockClient second = client(kind);
        for (int hold = 0; hold < 4; hold++) {
            acquire(kind.lock(second, name, hold), 3 + hold % 2, "hold " + hold + " of another client").close();
        }
        return counters;
    }

    /** Holds on a new client after the loss, a write hold and a read hold for the read-write lock. */
    private void holdsAfterTheLoss(Kind kind, String when) throws Exception {
        LockClient client = client(kind);
        for (int hold = 0; hold < 2; hold++) {
            acquire(kind.lock(client, name, hold), 5, "hold " + hold + " " + when).close();
        }
    }

    private LockClient client(Kind kind) {
        String[] uris = used(kind).stream().map(RedisServer::uri).toArray(String[]::new);
        LockClient client = LockClient.create(kind.config(uris));
        clients.add(client);
        return client;
    }

    private LockHold acquire(DistributedLock lock, long owner, String what) throws Exception {
        return record(lock.acquireAsync(owner).get(TIMEOUT_SECONDS, TimeUnit.SECONDS), what);
    }

    /** Checks the hold's token against every token before it in the test. */
    private LockHold record(LockHold hold, String what) {
        assertThat(hold.fencingToken()).as("%s: its token against the highest before", what).isGreaterThan(highest);
        highest = hold.fencingToken();
        return hold;
    }
}
