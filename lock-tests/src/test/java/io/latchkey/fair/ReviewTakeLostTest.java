package io.latchkey.fair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Reviewer's throwaway: a take that timed out and never ran must not stretch the grant's bound to the lease. */
class ReviewTakeLostTest {

    @Test
    void aTakeThatTimedOutAndNeverRanDoesNotOutliveTheGrant() throws Exception {
        try (RedisServer server = RedisServer.start(); FairLockRedis raw = new FairLockRedis(server.uri());
             FaultProxy proxy = FaultProxy.to(server)) {
            RedisCommands<String, String> redis = raw.commands();
            String acquireSha = redis.scriptLoad(FairLockRedis.script("acquire.lua"));
            String releaseSha = redis.scriptLoad(FairLockRedis.script("release.lua"));
            String name = "review:" + UUID.randomUUID();
            String[] keys = {name, FairLockRedis.queueKey(name), FairLockRedis.timeoutsKey(name), FairLockRedis.channelOf(name),
                LockKeys.of(name).fenceCounter(), FairLockRedis.secretsKey(name)};
            String[] releaseKeys = {name, FairLockRedis.queueKey(name), FairLockRedis.channelOf(name), FairLockRedis.timeoutsKey(name),
                LockKeys.of(name).fenceCounter(), FairLockRedis.secretsKey(name)};
            List<Object> held = redis.evalsha(acquireSha, ScriptOutputType.MULTI, keys, "60000", "holder:1", "300000", "publish",
                    "holder-call", "");
            assertThat(held.get(0)).isEqualTo(1L);

            LockClient w = LockClient.create(LockConfig.builder().address(proxy.uri()).fairLockWaitTimeout(Duration.ofSeconds(4))
                    .commandTimeout(Duration.ofMillis(500)).build());
            LockClient x = LockClient.create(LockConfig.builder().address(server.uri()).fairLockWaitTimeout(Duration.ofSeconds(4)).build());
            try {
                DistributedLock wLock = w.getFairLock(name);
                CompletableFuture<Optional<LockHold>> wWaits = wLock.tryAcquireAsync(Duration.ofMinutes(1), Duration.ofSeconds(20), 7);
                await().atMost(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 1);
                CompletableFuture<LockHold> xWaits = x.getFairLock(name).acquireAsync(8);
                await().atMost(Duration.ofSeconds(10)).until(() -> raw.queue(name).size() == 2);
                Thread.sleep(300); // let W's subscription settle

                redis.multi();
                redis.evalsha(releaseSha, ScriptOutputType.INTEGER, releaseKeys, "holder:1", "publish", "holder-release", "release");
                redis.clientPause(1_500);
                redis.exec();
                long releasedAt = System.nanoTime();

                LockHold wHold = wWaits.get(1, TimeUnit.SECONDS).orElseThrow(); // entered on the word, take paused in Redis
                Thread.sleep(800); // the take timed out on the client (500 ms): outcome unknown
                proxy.blackHole(); // W is partitioned from now on
                proxy.resetAll(); // and the paused take is dropped with its connection, never run

                LockHold xHold = xWaits.get(15, TimeUnit.SECONDS);
                long xAt = System.nanoTime();
                System.out.println("REVIEW: X acquired " + TimeUnit.NANOSECONDS.toMillis(xAt - releasedAt) + " ms after the release, token "
                        + xHold.fencingToken() + "; W token " + wHold.fencingToken() + ", W valid: " + wHold.isValid()
                        + ", W lease lost told: " + wHold.leaseLost().isDone());
                assertThat(wHold.isValid()).as("W still believes it holds the lock while X holds it").isFalse();
            } finally {
                proxy.heal();
                w.close();
                x.close();
            }
        }
    }
}
