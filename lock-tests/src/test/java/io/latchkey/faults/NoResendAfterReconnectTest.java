package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pins that an acquire whose reply was lost with its connection runs on Redis exactly once: the
 * client never sends it again on the connection it reconnects.
 *
 * <p>What pins it: when a connection ends with commands in flight, Lettuce's
 * {@code DefaultEndpoint.notifyDrainQueuedCommands} fails them ("Connection disconnected") if
 * commands are rejected while disconnected, and otherwise puts them back in its buffer and sends
 * them again once it has reconnected. Latchkey asks for the first with
 * {@code DisconnectedBehavior.REJECT_COMMANDS} in lock-core's {@code ConnectionOptions}; Lettuce's
 * default ({@code DEFAULT}, which with auto-reconnect on means {@code ACCEPT_COMMANDS}) is the
 * second, and would run a lost acquire twice: a hold count of 2 the caller never heard of.
 *
 * <p>Only a connection that ends with a FIN tells the two apart. On a RST, Lettuce's
 * {@code CommandHandler.exceptionCaught} fails the oldest command in flight with the I/O error
 * before the connection counts as closed, whatever the disconnected behaviour, so the RST case
 * here holds either way; it is kept to show that path runs the script once too. The canary test
 * below checks that Lettuce still re-sends after a FIN when commands are accepted, so that the
 * FIN case keeps its teeth across Lettuce upgrades.
 *
 * <p>Runs are counted in Redis's slow log (every command, with its arguments), by the acquire
 * script's SHA and the lock's key, so neither the caller's outcome nor the release that Latchkey
 * may send to settle an acquire it never heard back from changes the count.
 */
class NoResendAfterReconnectTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final String ACQUIRE_SHA = sha1OfResource("/io/latchkey/internal/lock/acquire.lua");

    private static RedisServer redis;

    private FaultProxy proxy;
    private LockClient client;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start("--slowlog-log-slower-than", "0", "--slowlog-max-len", "100000");
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void connectThroughProxy() {
        proxy = FaultProxy.to(redis);
        client = LockClient.create(LockConfig.builder().address(proxy.uri()).commandTimeout(COMMAND_TIMEOUT).build());
        // Loads the acquire script into Redis, so the faulted call is one EVALSHA, not NOSCRIPT and EVAL.
        DistributedLock warmUp = client.getLock("warm-up-" + UUID.randomUUID());
        assertThat(warmUp.tryLock()).isTrue();
        warmUp.unlock();
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        proxy.close();
    }

    @ParameterizedTest
    @EnumSource(FaultProxy.Disconnect.class)
    void anAcquireWhoseReplyWasLostRunsOnceAcrossTheReconnect(FaultProxy.Disconnect how) throws Exception {
        String name = "no-resend-" + UUID.randomUUID();
        CompletableFuture<Void> lost = proxy.dropReplyTo(
                command -> command.contains(ACQUIRE_SHA) && command.contains(name), how);

        CompletableFuture<Boolean> outcome = client.getLock(name).tryLockAsync();

        lost.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        // What the caller learns is another test's business; here it only has to be over, as it
        // is once a re-sent acquire had been answered.
        String told = outcome.handle((acquired, failure) -> failure == null ? "acquired: " + acquired : "failed: " + failure)
                .get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        // Once a later command gets through on the reconnected connection, anything Lettuce had
        // kept to send again has been sent before it.
        awaitReconnected();

        // The acquire loop may try again after the lost answer (a short outage): that is a new
        // call, with a call id of its own, sent once the lost one was settled. A re-send by
        // Lettuce would be the same command, call id and all.
        List<List<String>> runs = acquireRunsOf(name);
        assertThat(runs).as("runs of the acquire script on '%s' (the caller was told %s)", name, told)
                .isNotEmpty().doesNotHaveDuplicates();
    }

    /**
     * The mechanism the test above relies on, shown on a bare Lettuce connection through the same
     * fault: when commands are accepted while disconnected, an INCR whose reply was lost with a
     * FIN is sent again after the reconnect, and runs twice.
     */
    @Test
    void lettuceSendsALostCommandAgainAfterReconnectingWhenCommandsAreAccepted() throws Exception {
        String key = "resent-" + UUID.randomUUID();
        RedisURI uri = RedisURI.create(proxy.uri());
        uri.setTimeout(COMMAND_TIMEOUT);
        RedisClient lettuce = RedisClient.create(uri);
        lettuce.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .autoReconnect(true)
                .build());
        try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
            CompletableFuture<Void> lost = proxy.dropReplyTo(key, FaultProxy.Disconnect.CLOSE);

            Long reply = connection.sync().incr(key);

            lost.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(reply).as("the reply to the second run").isEqualTo(2);
            assertThat(redis.command("GET", key)).isEqualTo("2");
        } finally {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private void awaitReconnected() {
        await().atMost(ANSWER).ignoreExceptions().until(() -> {
            DistributedLock probe = client.getLock("probe-" + UUID.randomUUID());
            boolean acquired = probe.tryLock();
            probe.unlock();
            return acquired;
        });
    }

    /** @return every run of the acquire script by SHA on the lock {@code name}: its arguments */
    private static List<List<String>> acquireRunsOf(String name) {
        List<?> entries = (List<?>) redis.command("SLOWLOG", "GET", "-1");
        return entries.stream()
                .map(entry -> (List<?>) ((List<?>) entry).get(3))
                .filter(args -> args.size() >= 4 && "EVALSHA".equalsIgnoreCase(String.valueOf(args.get(0)))
                        && ACQUIRE_SHA.equals(args.get(1)) && name.equals(args.get(3)))
                .map(args -> args.stream().map(String::valueOf).toList())
                .toList();
    }

    private static String sha1OfResource(String path) {
        try (InputStream in = NoResendAfterReconnectTest.class.getResourceAsStream(path)) {
            assertThat(in).as("script resource %s", path).isNotNull();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
