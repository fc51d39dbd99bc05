package io.latchkey.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RedisBinaryTest {

    private String serverProperty;
    private String embeddedProperty;

    @BeforeEach
    void rememberProperties() {
        serverProperty = System.getProperty(RedisBinary.SERVER_PROPERTY);
        embeddedProperty = System.getProperty(RedisBinary.EMBEDDED_PROPERTY);
    }

    @AfterEach
    void restoreProperties() {
        restore(RedisBinary.SERVER_PROPERTY, serverProperty);
        restore(RedisBinary.EMBEDDED_PROPERTY, embeddedProperty);
    }

    @Test
    void chosenBinaryIsExecutableAndHasAVersion() {
        assertTrue(Files.isExecutable(RedisBinary.path()));
        assertTrue(RedisBinary.version().matches("\\d+\\.\\d+\\.\\d+"), RedisBinary.version());
        assertTrue(RedisBinary.atLeast(RedisBinary.majorOf(RedisBinary.version())));
        assertFalse(RedisBinary.atLeast(RedisBinary.majorOf(RedisBinary.version()) + 1));
    }

    @Test
    void embeddedBinaryIsChosenByOperatingSystemAndArchitecture() {
        assertEquals(Optional.of("redis-server-6.2.6-v5-linux-amd64"), EmbeddedBinary.resourceFor("Linux", "amd64"));
        assertEquals(Optional.of("redis-server-6.2.7-linux-arm64"), EmbeddedBinary.resourceFor("Linux", "aarch64"));
        assertEquals(Optional.of("redis-server-6.2.6-v5-darwin-arm64"), EmbeddedBinary.resourceFor("Mac OS X", "aarch64"));
        assertEquals(Optional.of("redis-server-6.2.6-v5-darwin-amd64"), EmbeddedBinary.resourceFor("Mac OS X", "x86_64"));
        assertEquals(Optional.empty(), EmbeddedBinary.resourceFor("Windows 11", "amd64"));
        assertEquals(Optional.empty(), EmbeddedBinary.resourceFor("Linux", "s390x"));
    }

    @Test
    void serverPropertyOverridesEveryOtherChoice() {
        Path chosen = RedisBinary.path();
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "true");
        System.setProperty(RedisBinary.SERVER_PROPERTY, chosen.toString());

        assertEquals(chosen, RedisBinary.path());
    }

    @Test
    void serverPropertyNamingNoExecutableIsRejected() {
        System.setProperty(RedisBinary.SERVER_PROPERTY, "/nonexistent/redis-server");

        assertThrows(RedisFixtureException.class, RedisBinary::path);
    }

    @Test
    void forcedEmbeddedBinaryRunsAServerThatSurvivesTheFaultOperations() {
        assumeTrue(System.getProperty(RedisBinary.SERVER_PROPERTY) == null, "a binary is forced by property");
        Optional<Path> embedded = RedisBinary.embedded();
        assumeTrue(embedded.isPresent(), "embedded-redis has no binary for this platform");
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "true");

        assertEquals(embedded.get(), RedisBinary.path());
        try (RedisServer server = RedisServer.start()) {
            assertEquals(embedded.get(), server.binary());
            assertTrue(server.version().startsWith("6."), server.version());
            assertTrue(server.ping(Duration.ofSeconds(2)));

            server.pause();
            assertFalse(server.ping(Duration.ofMillis(300)));
            server.resume();
            server.kill();
            server.restart();
            assertTrue(server.ping(Duration.ofSeconds(2)));
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
