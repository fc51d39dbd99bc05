package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FaultProxy} in front of a real {@code redis-server}: what each fault does to the bytes,
 * seen from a raw socket (which tells a FIN from a RST) or from Lettuce, and what Redis ran,
 * seen on a direct connection.
 */
class FaultProxyTest {

    private static final Duration ANSWER = Duration.ofSeconds(5);
    // Long enough that a reply passing through would surely arrive, short enough to keep the suite fast.
    private static final Duration SILENCE = Duration.ofMillis(300);

    private static RedisServer redis;

    private FaultProxy proxy;
    private RedisClient lettuce;
    private String key;

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
    void startProxy() {
        proxy = FaultProxy.to(redis);
        key = "fault-proxy-" + UUID.randomUUID();
    }

    @AfterEach
    void stopProxy() {
        if (lettuce != null) {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        proxy.close();
    }

    @Test
    void passesALettuceConnectionsCommandsAndRepliesUnchanged() {
        assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
        RedisCommands<String, String> commands = lettuceThroughProxy(ANSWER).sync();

        commands.hset(key, Map.of("a", "1", "b", "2"));

        // HGETALL is a RESP3 map here, since Lettuce negotiates RESP3 with HELLO.
        assertThat(commands.hgetall(key)).isEqualTo(Map.of("a", "1", "b", "2"));
        assertThat(commands.hincrby(key, "a", 5)).isEqualTo(6);
        assertThat(proxy.connections()).isEqualTo(1);
    }

    @Test
    void droppedReplyWithCloseRanTheCommandButTheClientReadsTheEndOfTheStream() throws Exception {
        CompletableFuture<Void> dropped = proxy.dropReplyTo(key, FaultProxy.Disconnect.CLOSE);

        assertThatThrownBy(() -> callThroughProxy("INCR", key))
                .isInstanceOf(RedisFixtureException.class)
                .hasCauseInstanceOf(EOFException.class);

        dropped.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(redis.command("GET", key)).isEqualTo("1");
        assertThat(proxy.connections()).isZero();
    }

    @Test
    void droppedReplyWithResetRanTheCommandButTheClientIsReset() throws Exception {
        CompletableFuture<Void> dropped = proxy.dropReplyTo(key, FaultProxy.Disconnect.RESET);

        assertThatThrownBy(() -> callThroughProxy("INCR", key))
                .isInstanceOf(RedisFixtureException.class)
                .cause().isInstanceOf(SocketException.class).hasMessageContaining("reset");

        dropped.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(redis.command("GET", key)).isEqualTo("1");
    }

    @Test
    void commandsThatDoNotMatchPassWhileADropIsArmed() {
        CompletableFuture<Void> dropped = proxy.dropReplyTo(key, FaultProxy.Disconnect.CLOSE);

        assertThat(callThroughProxy("PING")).isEqualTo("PONG");
        assertThat(callThroughProxy("INCR", "other-" + UUID.randomUUID())).isEqualTo(1L);

        assertThat(dropped).isNotDone();
    }

    @Test
    void onlyTheChosenReplyAndThoseAfterItAreDroppedFromAPipeline() throws Exception {
        // Not containing the key, so that only the middle command matches.
        String before = "before-" + UUID.randomUUID();
        String after = "after-" + UUID.randomUUID();
        CompletableFuture<Void> dropped = proxy.dropReplyTo(key, FaultProxy.Disconnect.CLOSE);

        try (Socket socket = rawSocketToProxy()) {
            socket.getOutputStream().write(resp(List.of("INCR", before), List.of("INCR", key), List.of("INCR", after)));
            InputStream in = socket.getInputStream();

            assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo(":1\r\n");
            assertThat(in.read()).as("the end of the stream after the first reply").isEqualTo(-1);
        }

        dropped.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        // All three were sent before the reply came back, so all three ran.
        assertThat(redis.command("MGET", before, key, after)).isEqualTo(List.of("1", "1", "1"));
    }

    @Test
    void dropNextReplyTakesWhateverCommandComesNext() throws Exception {
        CompletableFuture<Void> closed = proxy.dropNextReplyAndClose();
        assertThatThrownBy(() -> callThroughProxy("INCR", key)).hasCauseInstanceOf(EOFException.class);
        closed.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);

        CompletableFuture<Void> reset = proxy.dropNextReplyAndReset();
        assertThatThrownBy(() -> callThroughProxy("INCR", key)).cause().isInstanceOf(SocketException.class);
        reset.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);

        assertThat(redis.command("GET", key)).isEqualTo("2");
        assertThat(callThroughProxy("INCR", key)).isEqualTo(3L);
    }

    @Test
    void aSecondDropCannotBeArmedBeforeTheFirstMatchedAndHealCancelsIt() {
        CompletableFuture<Void> dropped = proxy.dropReplyTo(key, FaultProxy.Disconnect.CLOSE);

        assertThatThrownBy(() -> proxy.dropNextReplyAndReset()).isInstanceOf(IllegalStateException.class);

        proxy.heal();
        assertThat(dropped).isCancelled();
        assertThat(callThroughProxy("INCR", key)).isEqualTo(1L);
    }

    @Test
    void blackHoleTimesOutALettuceCommandAndHealDeliversItLate() {
        RedisCommands<String, String> commands = lettuceThroughProxy(Duration.ofSeconds(1)).sync();
        assertThat(commands.ping()).isEqualTo("PONG");

        proxy.blackHole();

        assertThatThrownBy(() -> commands.incr(key)).isInstanceOf(RedisCommandTimeoutException.class);
        assertThat(redis.command("GET", key)).as("nothing reached Redis").isNull();

        proxy.heal();

        await().atMost(ANSWER).until(() -> "1".equals(redis.command("GET", key)));
        // The late reply went to the timed-out command, so the connection is still in step.
        assertThat(commands.incr(key)).isEqualTo(2);
    }

    @Test
    void blackHoleAcceptsNewConnectionsButAnswersNothing() {
        proxy.blackHole();

        assertThatThrownBy(() -> RespClient.call(proxy.host(), proxy.port(), SILENCE, List.of("PING")))
                .isInstanceOf(RedisFixtureException.class)
                .hasCauseInstanceOf(SocketTimeoutException.class);

        proxy.heal();
        assertThat(callThroughProxy("PING")).isEqualTo("PONG");
    }

    @Test
    void delayHoldsEachReplyBackForTheDelay() {
        proxy.delay(SILENCE);

        long start = System.nanoTime();
        assertThat(callThroughProxy("PING")).isEqualTo("PONG");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(SILENCE);
    }

    @Test
    void endingTheDelayReleasesTheRepliesItHeld() throws Exception {
        proxy.delay(Duration.ofHours(1));
        CompletableFuture<Object> ping = CompletableFuture.supplyAsync(() -> callThroughProxy("PING"));

        assertThatThrownBy(() -> ping.get(SILENCE.toMillis(), TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);

        proxy.delay(Duration.ZERO);
        assertThat(ping.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("PONG");
    }

    @Test
    void resetAllResetsEveryLiveConnectionAndNewOnesStillPass() throws Exception {
        try (Socket first = rawSocketToProxy(); Socket second = rawSocketToProxy()) {
            assertThat(pingOver(first)).isEqualTo("+PONG\r\n");
            assertThat(pingOver(second)).isEqualTo("+PONG\r\n");
            assertThat(proxy.connections()).isEqualTo(2);

            proxy.resetAll();

            assertThatThrownBy(() -> first.getInputStream().read()).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            assertThatThrownBy(() -> second.getInputStream().read()).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            assertThat(proxy.connections()).isZero();
        }
        assertThat(callThroughProxy("PING")).isEqualTo("PONG");
    }

    @Test
    void aReconnectingLettuceClientComesBackThroughTheProxyAfterAReset() {
        RedisCommands<String, String> commands = lettuceThroughProxy(ANSWER).sync();
        assertThat(commands.incr(key)).isEqualTo(1);

        proxy.resetAll();

        await().atMost(ANSWER).ignoreExceptions().until(() -> commands.incr(key) >= 2);
        assertThat(proxy.connections()).isEqualTo(1);
    }

    @Test
    void closeEndsLiveConnectionsAndFreesThePort() throws Exception {
        try (Socket socket = rawSocketToProxy()) {
            assertThat(pingOver(socket)).isEqualTo("+PONG\r\n");

            proxy.close();

            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(proxy.connections()).isZero();
        try (ServerSocket rebound = new ServerSocket()) {
            rebound.bind(new InetSocketAddress(InetAddress.getByName(proxy.host()), proxy.port()));
            assertThat(rebound.getLocalPort()).isEqualTo(proxy.port());
        }
    }

    /** The URI's timeout bounds the handshake too, which a busy machine may make slow; commands get their own. */
    private StatefulRedisConnection<String, String> lettuceThroughProxy(Duration commandTimeout) {
        RedisURI uri = RedisURI.create(proxy.uri());
        uri.setTimeout(ANSWER);
        lettuce = RedisClient.create(uri);
        lettuce.setOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled(commandTimeout)).build());
        return lettuce.connect();
    }

    private Object callThroughProxy(String... command) {
        return RespClient.call(proxy.host(), proxy.port(), ANSWER, List.of(command));
    }

    private Socket rawSocketToProxy() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(proxy.host(), proxy.port()), (int) ANSWER.toMillis());
        socket.setSoTimeout((int) ANSWER.toMillis());
        return socket;
    }

    private static String pingOver(Socket socket) throws IOException {
        socket.getOutputStream().write(resp(List.of("PING")));
        return new String(socket.getInputStream().readNBytes(7), StandardCharsets.US_ASCII);
    }

    @SafeVarargs
    private static byte[] resp(List<String>... commands) {
        StringBuilder text = new StringBuilder();
        for (List<String> command : commands) {
            text.append('*').append(command.size()).append("\r\n");
            for (String argument : command) {
                text.append('$').append(argument.length()).append("\r\n").append(argument).append("\r\n");
            }
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
