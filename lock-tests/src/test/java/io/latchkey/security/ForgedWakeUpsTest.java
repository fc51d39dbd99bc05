package io.latchkey.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.RedisInspector;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Anyone who may PUBLISH can send any message on a lock's channel. A wake-up never grants a lock
 * (every waiter tries in Redis), so the harm of a forged one is the work it causes: the message
 * that wakes every waiter at once means something only to the readers of a read-write lock, and
 * wakes nobody elsewhere (issue 27, finding 2).
 */
class ForgedWakeUpsTest {

    private static final Pattern EVAL_CALLS = Pattern.compile("cmdstat_evalsha:calls=(\\d+)");
    private static RedisServer redis;
    private static RedisInspector inspector;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        inspector = new RedisInspector(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (inspector != null) {
            inspector.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aForgedWakeOfEveryWaiterOnAPlainLockWakesNone() throws Exception {
        String name = "forged-every-waiter";
        try (LockClient holder = LockClient.create(redis.uri());
             LockClient waiting = LockClient.create(LockConfig.builder().address(redis.uri()).noLocalHandOff().build())) {
            LockHold held = holder.getLock(name).acquire();
            DistributedLock lock = waiting.getLock(name);
            List<CompletableFuture<Boolean>> waiters = new ArrayList<>();
            for (long owner = 1; owner <= 20; owner++) {
                // Each gives the lock back as soon as it has it, off the thread that granted it.
                waiters.add(lock.tryAcquireAsync(Duration.ofSeconds(20), owner)
                        .thenApplyAsync(hold -> hold.map(taken -> {
                            taken.close();
                            return true;
                        }).orElse(false)));
            }
            // Every waiter has subscribed, tried once and parked: its next script comes only when woken.
            long before = settledScriptCalls();

            for (int i = 0; i < 50; i++) {
                inspector.commands().publish(RedisInspector.channelOf(name), "*");
            }
            long after = settledScriptCalls();

            // Before: 50 messages made each of the 20 waiters try again, 1,000 scripts.
            assertTrue(after - before < 20, "scripts run for forged wake-ups: " + (after - before));
            held.close();
            CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertEquals(20, waiters.stream().filter(CompletableFuture::join).count(), "each waiter got the lock in turn");
        }
    }

    /** The script calls Redis has run, read once they stopped changing for a while. */
    private static long settledScriptCalls() throws InterruptedException {
        long last = -1;
        long now = scriptCalls();
        while (now != last) {
            TimeUnit.MILLISECONDS.sleep(300);
            last = now;
            now = scriptCalls();
        }
        return now;
    }

    private static long scriptCalls() {
        Matcher calls = EVAL_CALLS.matcher(inspector.commands().info("commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }
}
