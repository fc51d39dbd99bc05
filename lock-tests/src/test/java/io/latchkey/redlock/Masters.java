package io.latchkey.redlock;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Independent masters for RedLock tests: the servers, raw looks at what each keeps (through a
 * Lettuce connection of its own, not through Latchkey), clients on them, and putting back
 * whatever a test killed or paused.
 */
final class Masters implements AutoCloseable {

    private final RedisServers servers;
    private final RedisClient raw = RedisClient.create();
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    private Masters(RedisServers servers) {
        this.servers = servers;
    }

    static Masters start(int count) {
        return new Masters(RedisServers.start(count));
    }

    int size() {
        return servers.size();
    }

    int majority() {
        return size() / 2 + 1;
    }

    RedisServer get(int index) {
        return servers.get(index);
    }

    String[] uris() {
        return servers.uris();
    }

    /** Kills masters {@code 0 .. count-1}. */
    void kill(int count) {
        for (int i = 0; i < count; i++) {
            servers.get(i).kill();
        }
    }

    /** @return a builder pointed at every master, with the given bounds */
    LockConfig.Builder config(Duration commandTimeout, Duration attemptTimeout, Duration watchdogTimeout) {
        return LockConfig.builder().redLockAddresses(uris())
                .commandTimeout(commandTimeout).redLockAttemptTimeout(attemptTimeout).watchdogTimeout(watchdogTimeout);
    }

    /** @return a client, closed by {@link #closeClients()} */
    LockClient client(LockConfig config) {
        LockClient client = LockClient.create(config);
        clients.add(client);
        return client;
    }

    /** @return one plain client per master, closed by {@link #closeClients()} */
    List<LockClient> plainClients(Duration commandTimeout, Duration attemptTimeout, Duration watchdogTimeout) {
        List<LockClient> plain = new ArrayList<>();
        for (String uri : uris()) {
            plain.add(client(LockConfig.builder().address(uri).commandTimeout(commandTimeout)
                    .redLockAttemptTimeout(attemptTimeout).watchdogTimeout(watchdogTimeout).build()));
        }
        return plain;
    }

    /**
     * @return the hold counts in the lock hash on master {@code index}: field
     *     {@code <clientId>:<ownerId>} to hold count, without the fields that remember each
     *     owner's last call and its hold's token
     */
    Map<String, String> holds(int index, String name) {
        try (StatefulRedisConnection<String, String> connection = connect(index)) {
            Map<String, String> holds = new java.util.HashMap<>(connection.sync().hgetall(name));
            holds.keySet().removeIf(field -> field.endsWith(":call") || field.endsWith(":token"));
            return holds;
        }
    }

    /** @return the indexes of the masters that keep anything under {@code name} */
    List<Integer> mastersHolding(String name) {
        List<Integer> holding = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
            if (servers.get(i).isRunning() && !servers.get(i).isPaused() && !holds(i, name).isEmpty()) {
                holding.add(i);
            }
        }
        return holding;
    }

    private StatefulRedisConnection<String, String> connect(int index) {
        RedisURI uri = RedisURI.create(servers.get(index).uri());
        uri.setTimeout(Duration.ofSeconds(5));
        return raw.connect(uri);
    }

    /** Closes the clients made here, then resumes paused masters and restarts killed ones. */
    void closeClientsAndRepair() {
        closeClients();
        for (RedisServer server : servers.servers()) {
            if (server.isPaused()) {
                server.resume();
            }
            if (!server.isRunning()) {
                server.restart();
            }
        }
    }

    void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    @Override
    public void close() {
        closeClients();
        raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        servers.close();
    }
}
