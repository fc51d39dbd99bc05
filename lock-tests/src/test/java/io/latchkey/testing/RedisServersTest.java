package io.latchkey.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RedisServersTest {

    @Test
    void threeServersRunOnThreeDistinctPortsAndAllAnswer() {
        try (RedisServers servers = RedisServers.start(3)) {
            assertEquals(3, servers.size());
            assertEquals(3, servers.servers().stream().map(RedisServer::port).distinct().count());
            for (RedisServer server : servers.servers()) {
                assertTrue(server.ping(Duration.ofSeconds(2)), server.toString());
            }
            assertSame(servers.servers().get(1), servers.get(1));
            assertArrayEquals(servers.servers().stream().map(RedisServer::uri).toArray(String[]::new),
                    servers.uris());
        }
    }

    @Test
    void closeEndsEveryServerAndMayBeRepeated() {
        RedisServers servers = RedisServers.start(2);
        List<Long> pids = servers.servers().stream().map(RedisServer::pid).collect(Collectors.toList());

        servers.close();
        servers.close();

        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
        }
    }

    @Test
    void countBelowOneIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> RedisServers.start(0));
    }
}
