package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.OneRedis;
import io.latchkey.internal.fair.FairLockProtocol;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.spi.Script;
import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.FaultProxy.Disconnect;
import io.latchkey.topology.CapturedLog;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Calls whose command reached Redis and ran, but whose answer was lost with the connection (closed
 * or reset by a fault proxy between client and Redis), or that were rejected while the connection
 * was down. Each must be settled by the library once Redis answers again: an unknown grant undone,
 * an unknown release completed, never more than the one call did. The watchdog lease is the
 * default 30 s, so a lock that is free again within a few seconds was settled, not expired.
 */
class LostAnswerTest {

    private static final Duration SETTLED = Duration.ofSeconds(5);
    private static final Script PLAIN_ACQUIRE = Script.load(ReentrantLockProtocol.class, "acquire.lua");
    private static final Script PLAIN_RELEASE = Script.load(ReentrantLockProtocol.class, "release.lua");
    private static final Script PLAIN_FORCE_RELEASE = Script.load(ReentrantLockProtocol.class, "force-release.lua");
    private static final Script FAIR_ACQUIRE = Script.load(FairLockProtocol.class, "acquire.lua");
    private static final Script FAIR_RELEASE = Script.load(FairLockProtocol.class, "release.lua");

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();
    private static final AtomicInteger names = new AtomicInteger();

    private FaultProxy proxy;
    private final List<LockClient> clients = new ArrayList<>();
    private String name;

    @BeforeAll
    static void loadScripts() {
        // Loaded up front, so that the answer a test loses is the script's own, not a NOSCRIPT.
        Stream.of(PLAIN_ACQUIRE, PLAIN_RELEASE, PLAIN_FORCE_RELEASE, FAIR_ACQUIRE, FAIR_RELEASE)
                .forEach(script -> assertThat(redis().scriptLoad(script.text())).isEqualTo(script.sha1()));
    }

    @BeforeEach
    void startProxy() {
        proxy = FaultProxy.to(REDIS.server());
        name = "lost-answer-" + names.incrementAndGet();
    }

    @AfterEach
    void closeAll() {
        clients.forEach(LockClient::close);
        proxy.close();
    }

    static Stream<Arguments> faults() {
        return Stream.of(Arguments.of("plain", Disconnect.CLOSE), Arguments.of("plain", Disconnect.RESET),
                Arguments.of("fair", Disconnect.CLOSE), Arguments.of("fair", Disconnect.RESET));
    }

    /** A client with the default settings, so local hand-off on. */
    private LockClient clientThroughProxy(Duration watchdog) {
        return clientThroughProxy(watchdog, UnaryOperator.identity());
    }

    /**
     * A client without local hand-off, for the calls that only it sends to Redis: with hand-off
     * on, a re-entry and a release that leaves levels are counted by the client, whose one hold in
     * Redis has a single level, so no answer of theirs can be lost.
     */
    private LockClient clientWithoutHandOffThroughProxy(Duration watchdog) {
        return clientThroughProxy(watchdog, LockConfig.Builder::noLocalHandOff);
    }

    private LockClient clientThroughProxy(Duration watchdog, UnaryOperator<LockConfig.Builder> handOff) {
        LockClient client = LockClient.create(handOff.apply(LockConfig.builder().address(proxy.uri())
                .watchdogTimeout(watchdog).commandTimeout(watchdog.dividedBy(4))).build());
        clients.add(client);
        return client;
    }

    private LockClient directClient() {
        LockClient client = LockClient.create(REDIS.server().uri());
        clients.add(client);
        return client;
    }

    private static BiFunction<LockClient, String, DistributedLock> kind(String kind) {
        return "fair".equals(kind) ? LockClient::getFairLock : LockClient::getLock;
    }

    private static Script acquireScript(String kind) {
        return "fair".equals(kind) ? FAIR_ACQUIRE : PLAIN_ACQUIRE;
    }

    private static Script releaseScript(String kind) {
        return "fair".equals(kind) ? FAIR_RELEASE : PLAIN_RELEASE;
    }

    private CompletableFuture<Void> loseAnswerTo(Script script, Disconnect how) {
        return proxy.dropReplyTo(command -> command.contains(script.sha1()) && command.contains(name), how);
    }

    private static RedisCommands<String, String> redis() {
        return REDIS.commands();
    }

    private static ConditionFactory settled() {
        // In the test's own thread: the blocking lock methods' owner is the calling thread.
        return await().atMost(SETTLED).pollInterval(Duration.ofMillis(20)).pollInSameThread();
    }

    /** Locks, retrying while the client reconnects after the fault. */
    private static void lockOnceReconnected(DistributedLock lock) {
        settled().ignoreExceptionsInstanceOf(LockException.class).until(() -> {
            lock.lock();
            return true;
        });
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("faults")
    void aGrantWhoseAnswerWasLostIsUndone(String kind, Disconnect how) throws Exception {
        DistributedLock lock = kind(kind).apply(clientThroughProxy(Duration.ofSeconds(30)), name);
        CompletableFuture<Void> lost = loseAnswerTo(acquireScript(kind), how);

        // A short outage within lock()'s bound: the lost grant is undone, then lock() tries again.
        lock.lock();
        lost.get(5, TimeUnit.SECONDS);
        assertThat(lock.getHoldCount()).as("a fresh hold: the lost grant was undone first").isEqualTo(1);
        lock.unlock();

        settled().until(() -> redis().exists(name) == 0);
        assertThat(kind(kind).apply(directClient(), name).tryLock()).as("another client gets it").isTrue();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("faults")
    void aReentryWhoseAnswerWasLostIsUndoneAndTheOuterHoldKept(String kind, Disconnect how) throws Exception {
        DistributedLock lock = kind(kind).apply(clientWithoutHandOffThroughProxy(Duration.ofSeconds(30)), name);
        lock.lock();
        CompletableFuture<Void> lost = loseAnswerTo(acquireScript(kind), how);

        // The lost re-entry is undone, then made again within lock()'s bound: two levels, not three.
        lock.lock();
        lost.get(5, TimeUnit.SECONDS);

        assertThat(redis().hget(name, heldField())).isEqualTo("2");
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        assertThat(redis().hget(name, heldField())).as("the outer hold kept").isEqualTo("1");
        lock.unlock();
        assertThat(redis().exists(name)).isZero();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("faults")
    void theOwnersNextLockNeverInheritsALostGrant(String kind, Disconnect how) throws Exception {
        DistributedLock lock = kind(kind).apply(clientThroughProxy(Duration.ofSeconds(30)), name);
        CompletableFuture<Void> lost = loseAnswerTo(acquireScript(kind), how);
        // The first lock() rides the lost answer out; the second is a re-entry of that hold only.
        lock.lock();
        lost.get(5, TimeUnit.SECONDS);
        lock.unlock();

        lockOnceReconnected(lock);

        assertThat(lock.getHoldCount()).as("a fresh hold, not a re-entry of the lost grant").isEqualTo(1);
        lock.unlock();
        assertThat(redis().exists(name)).isZero();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("faults")
    void aLastReleaseWhoseAnswerWasLostIsNeitherRenewedNorReportedAsALostLease(String kind, Disconnect how)
            throws Exception {
        Duration watchdog = Duration.ofMillis(900);
        try (CapturedLog log = new CapturedLog()) {
            DistributedLock lock = kind(kind).apply(clientThroughProxy(watchdog), name);
            lock.lock();
            CompletableFuture<Void> lost = loseAnswerTo(releaseScript(kind), how);

            assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class).hasMessageContaining("need not retry");
            lost.get(5, TimeUnit.SECONDS);

            assertThat(redis().exists(name)).as("the release ran").isZero();
            // Several renewal periods: a hold still registered would be found gone and reported.
            Thread.sleep(watchdog.toMillis() * 2);
            assertThat(log.hasLine("was lost", name)).isFalse();
            assertThat(redis().exists(name)).isZero();
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("faults")
    void aReentrantReleaseWhoseAnswerWasLostIsNotRepeated(String kind, Disconnect how) throws Exception {
        DistributedLock lock = kind(kind).apply(clientWithoutHandOffThroughProxy(Duration.ofSeconds(30)), name);
        lock.lock();
        lock.lock();
        lock.lock();
        CompletableFuture<Void> lost = loseAnswerTo(releaseScript(kind), how);

        assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class);
        lost.get(5, TimeUnit.SECONDS);

        settled().ignoreExceptionsInstanceOf(LockException.class).until(() -> lock.getHoldCount() == 2);
        lock.unlock();
        lock.unlock();
        assertThat(redis().exists(name)).isZero();
    }

    @Test
    void aReleaseRejectedWhileDisconnectedIsCompletedOnceRedisAnswers() throws Exception {
        DistributedLock lock = clientThroughProxy(Duration.ofSeconds(30)).getLock(name);
        lock.lock();
        proxy.blackHole();
        proxy.resetAll();

        assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class);
        assertThat(redis().exists(name)).as("held until Redis can be told").isOne();

        proxy.resetAll(); // what the black hole held back is lost with its connections
        proxy.heal();
        settled().until(() -> redis().exists(name) == 0);
    }

    @Test
    void aQueuedFairTryWhoseAnswerWasLostLeavesNoPlaceInTheQueue() throws Exception {
        DistributedLock holder = directClient().getFairLock(name);
        holder.lock();
        DistributedLock waiter = clientThroughProxy(Duration.ofSeconds(30)).getFairLock(name);
        CompletableFuture<Void> lost = loseAnswerTo(FAIR_ACQUIRE, Disconnect.RESET);

        // The lost try's place is left, and the wait goes on with a place of its own, left when it ends.
        assertThat(waiter.tryLock(Duration.ofSeconds(2))).isFalse();
        lost.get(5, TimeUnit.SECONDS);

        String queue = LockKeys.of(name).derived("queue");
        settled().until(() -> redis().exists(queue) == 0);
        holder.unlock();
        assertThat(redis().exists(name)).isZero();
    }

    @Test
    void aForceReleaseWhoseAnswerWasLostFailsAndIsNeverRepeated() throws Exception {
        DistributedLock first = directClient().getLock(name);
        first.lockAsync(1).get(5, TimeUnit.SECONDS);
        DistributedLock forcing = clientThroughProxy(Duration.ofSeconds(30)).getLock(name);
        CompletableFuture<Void> lost = loseAnswerTo(PLAIN_FORCE_RELEASE, Disconnect.RESET);

        assertThatThrownBy(forcing::forceUnlock).isInstanceOf(LockException.class);
        lost.get(5, TimeUnit.SECONDS);
        assertThat(redis().exists(name)).as("the force-release ran once").isZero();

        DistributedLock next = directClient().getLock(name);
        next.lockAsync(2).get(5, TimeUnit.SECONDS);
        settled().ignoreExceptionsInstanceOf(LockException.class).until(forcing::isLocked);
        assertThat(next.isHeldBy(2)).as("the lost force-release was not sent again").isTrue();
        next.unlockAsync(2).get(5, TimeUnit.SECONDS);
    }

    private String heldField() {
        return redis().hkeys(name).stream().filter(field -> !field.endsWith(":call") && !field.endsWith(":token")).findFirst().orElse("none");
    }
}
