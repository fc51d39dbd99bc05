package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.OneRedis;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Re-entry with another kind of lease than the outer hold's, on the plain and the fair lock.
 * Before the fix, an inner {@code tryLock(0, 300 ms)} under an outer {@code lock()} set the key to
 * expire in 300 ms and the outer holder lost the lock while working; and an inner {@code lock()}
 * under an outer fixed lease registered the hold with the watchdog, which then renewed it for as
 * long as the JVM lived.
 */
class MixedLeaseTest {

    private static final Duration WATCHDOG = Duration.ofMillis(1500);

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();
    private LockClient client;

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("plain", (Function<LockClient, Function<String, DistributedLock>>) c -> c::getLock),
                Arguments.of("fair", (Function<LockClient, Function<String, DistributedLock>>) c -> c::getFairLock));
    }

    private DistributedLock lock(Function<LockClient, Function<String, DistributedLock>> kind, String name) {
        client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(WATCHDOG).commandTimeout(Duration.ofMillis(500)).build());
        return kind.apply(client).apply(name);
    }

    private static RedisCommands<String, String> redis() {
        return REDIS.commands();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aShortFixedReentryNeverShortensAnOuterWatchdogHold(String kind,
            Function<LockClient, Function<String, DistributedLock>> lockOf) throws Exception {
        String name = "mixed-outer-watchdog-" + kind;
        DistributedLock lock = lock(lockOf, name);
        lock.lock();

        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
        // A real TTL must run out here: well past the re-entry's 300 ms and a whole watchdog lease.
        Thread.sleep(WATCHDOG.toMillis() + 500);

        assertThat(lock.getHoldCount()).as("both levels are still held").isEqualTo(2);
        lock.unlock();
        Thread.sleep(WATCHDOG.toMillis());
        assertThat(lock.isHeldByCurrentThread()).as("the outer watchdog level is still renewed").isTrue();
        lock.unlock();
        assertThat(redis().exists(name)).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aWatchdogReentryUnderAFixedLeaseRenewsOnlyWhileItIsHeld(String kind,
            Function<LockClient, Function<String, DistributedLock>> lockOf) throws Exception {
        String name = "mixed-outer-fixed-" + kind;
        DistributedLock lock = lock(lockOf, name);
        lock.lock(Duration.ofMillis(400));
        lock.lock();

        Thread.sleep(WATCHDOG.toMillis());
        assertThat(lock.getHoldCount()).as("the watchdog level keeps the hold alive").isEqualTo(2);

        lock.unlock();
        // Only the fixed level is left: nothing renews it, so it runs out within one watchdog lease.
        await().atMost(WATCHDOG.multipliedBy(3)).pollInterval(Duration.ofMillis(50))
                .until(() -> redis().exists(name) == 0);
    }
}
