package io.latchkey.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** What connecting to a Cluster tries again, and how it reads a master's version. */
class ClusterTopologyTest {

    private static RedisException notConnected() {
        return new RedisException("Currently not connected. Commands are rejected.");
    }

    /** The shape Lettuce gave in a soak: the seed's CLUSTER NODES found its new connection down. */
    @Test
    void aTopologyQueryWhoseNewConnectionWasDownIsTriedAgain() {
        RedisException refresh = new RedisException("Cannot retrieve cluster partitions from [redis://127.0.0.1:55378]");
        refresh.addSuppressed(notConnected());
        RedisConnectionException failure = new RedisConnectionException("Unable to establish a connection to Redis Cluster", refresh);

        assertTrue(ClusterTopology.droppedAsItOpened(failure));
        assertTrue(ClusterTopology.droppedAsItOpened(new CompletionException(failure)));
    }

    @Test
    void aMastersVersionQueryWhoseConnectionWasDownIsTriedAgain() {
        assertTrue(ClusterTopology.droppedAsItOpened(new CompletionException(notConnected())));
    }

    @Test
    void aRefusalOrAnUnreachableSeedIsNotTriedAgain() {
        RedisException wrongPassword = new RedisException("Cannot retrieve cluster partitions from [redis://127.0.0.1:55378]");
        wrongPassword.addSuppressed(new RedisCommandExecutionException("WRONGPASS invalid username-password pair"));
        assertFalse(ClusterTopology.droppedAsItOpened(
                new RedisConnectionException("Unable to establish a connection to Redis Cluster", wrongPassword)));
        assertFalse(ClusterTopology.droppedAsItOpened(new RedisConnectionException("Connection refused: /127.0.0.1:1")));
    }

    @Test
    void theMajorVersionIsReadFromInfoServer() {
        assertEquals(7, ClusterTopology.majorVersion("# Server\r\nredis_version:7.0.15\r\nredis_mode:cluster\r\n"));
        assertEquals(0, ClusterTopology.majorVersion("# Server\r\n"));
    }
}
