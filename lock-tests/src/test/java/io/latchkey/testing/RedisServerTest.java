package io.latchkey.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    private static final Duration ANSWER = Duration.ofSeconds(2);
    // Long enough that a live server would surely answer, short enough to keep the suite fast.
    private static final Duration SILENCE = Duration.ofMillis(300);

    @Test
    void startedServerListensOnLoopbackAndAnswersPing() {
        try (RedisServer server = RedisServer.start()) {
            assertTrue(server.isRunning());
            assertEquals("127.0.0.1", server.host());
            assertTrue(server.port() > 0);
            assertEquals("redis://127.0.0.1:" + server.port(), server.uri());
            assertTrue(ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive).orElse(false));
            assertEquals(RedisBinary.version(), server.version());
            assertTrue(server.ping(ANSWER));
        }
    }

    @Test
    void stoppedServerRestartsOnTheSamePort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            long firstPid = server.pid();

            server.stop();
            assertFalse(server.isRunning());
            assertFalse(server.ping(SILENCE));

            server.restart();
            assertTrue(server.isRunning());
            assertEquals(port, server.port());
            assertNotEquals(firstPid, server.pid());
            assertTrue(server.ping(ANSWER));
        }
    }

    @Test
    void killEndsTheProcessAtOnceAndRestartBringsItBack() {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();

            server.kill();
            assertFalse(server.isRunning());
            assertFalse(isAlive(pid));
            assertFalse(server.ping(SILENCE));

            server.restart();
            assertTrue(server.ping(ANSWER));
        }
    }

    @Test
    void pausedServerAnswersNoPingUntilResumed() {
        try (RedisServer server = RedisServer.start()) {
            server.pause();
            assertTrue(server.isRunning());
            assertTrue(server.isPaused());
            assertFalse(server.ping(SILENCE));

            server.resume();
            assertFalse(server.isPaused());
            assertTrue(server.ping(ANSWER));
        }
    }

    @Test
    void stopResumesAPausedServerAndEndsIt() {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();
            server.pause();

            server.stop();
            assertFalse(isAlive(pid));
        }
    }

    @Test
    void closeIsIdempotentAndLeavesNoProcessNorDirectory() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        Path dir = server.logFile().getParent();

        server.close();
        server.close();

        assertFalse(isAlive(pid));
        assertFalse(server.isRunning());
        assertFalse(Files.exists(dir));
        assertFalse(LiveServers.contains(server));
        assertThrows(IllegalStateException.class, server::restart);
    }

    @Test
    void closeKillsAPausedServer() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        server.pause();

        server.close();

        assertFalse(isAlive(pid));
    }

    @Test
    void restartWhileRunningIsRejected() {
        try (RedisServer server = RedisServer.start()) {
            assertThrows(IllegalStateException.class, server::restart);
            assertTrue(server.ping(ANSWER));
        }
    }

    @Test
    void extraArgumentsReachTheServerAndAPasswordStillCountsAsUp() {
        try (RedisServer server = RedisServer.start("--requirepass", "secret")) {
            assertTrue(server.ping(ANSWER));
        }
    }

    @Test
    void serverThatExitsAtStartIsReportedWithItsLog() {
        RedisFixtureException failure = assertThrows(RedisFixtureException.class,
                () -> RedisServer.start("--no-such-directive", "x"));

        assertTrue(failure.getMessage().contains("exited with code"), failure.getMessage());
        assertTrue(failure.getMessage().contains("no-such-directive"), failure.getMessage());
    }

    @Test
    void startMovesToAnotherPortWhenTheChosenOneIsTaken() throws IOException {
        try (ServerSocket squatter = bindLoopback(0)) {
            int taken = squatter.getLocalPort();
            AtomicInteger picks = new AtomicInteger();

            try (RedisServer server = RedisServer.start(
                    () -> picks.getAndIncrement() == 0 ? taken : FreePorts.pick("127.0.0.1"))) {
                assertNotEquals(taken, server.port());
                assertEquals(2, picks.get());
                assertTrue(server.ping(ANSWER));
            }
        }
    }

    @Test
    void restartFailsRatherThanMoveWhenItsPortWasTaken() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            server.kill();
            try (ServerSocket squatter = bindLoopback(server.port())) {
                RedisFixtureException failure = assertThrows(RedisFixtureException.class, server::restart);
                assertTrue(failure.getMessage().contains("could not bind port " + squatter.getLocalPort()),
                        failure.getMessage());
            }

            server.restart();
            assertTrue(server.ping(ANSWER));
        }
    }

    private static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static ServerSocket bindLoopback(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
        return socket;
    }
}
