package io.latchkey.security;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.RedisInspector;
import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
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
 * wakes nobody elsewhere (issue 27, finding 2). The one message a waiter enters on, the fair
 * lock's grant at the release, must prove the secret of the waiter's last try: a forged one is a
 * wake-up like any other (issue 28).
 */
class ForgedWakeUpsTest {

    private static final long WAITER = 1;
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

    @Test
    void aForgedGrantForAQueuedFairWaiterDoesNotLetItInWhileAnotherHoldsTheLock() throws Exception {
        String name = "forged-fair-grant";
        try (LockClient holder = LockClient.create(redis.uri());
             LockClient waiting = LockClient.create(LockConfig.builder().address(redis.uri())
                     .fairLockWaitTimeout(Duration.ofMinutes(1)).build())) {
            LockHold held = holder.getFairLock(name).acquire();
            CompletableFuture<LockHold> waiter = waiting.getFairLock(name).acquireAsync(WAITER);
            String queue = "latchkey:{" + name + "}:queue";
            await().atMost(Duration.ofSeconds(10)).until(() -> inspector.commands().llen(queue) == 1);
            String field = inspector.commands().lindex(queue, 0);
            // Every try of the waiter is made: it is subscribed, and its next try is half a minute off.
            long before = settledScriptCalls();

            // Plausible tokens: above the slot's fencing counter, as a real grant's would be; with
            // no proof, with a proof made from a guessed secret, and with a proof of the wrong form.
            long counter = Long.parseLong(inspector.commands().get(LockKeys.of(name).fenceCounter()));
            String token = Long.toString(counter + 1_000);
            List<String> forged = List.of(field + " " + token, field + " " + token + " " + sha1Hex(token + ":" + "0".repeat(32)),
                    field + " " + (counter + 1) + " " + "0".repeat(40));
            for (String message : forged) {
                inspector.commands().publish(RedisInspector.channelOf(name), message);
            }
            long after = settledScriptCalls();

            assertFalse(waiter.isDone(), "the waiter entered on a forged grant while another owner held the lock");
            assertTrue(held.isValid());
            assertNull(inspector.commands().hget(name, field), "nothing was granted to the waiter in Redis");
            // Each forged grant cost at most the one try a forged wake-up costs.
            assertTrue(after - before <= forged.size(), "scripts run for forged grants: " + (after - before));
            long heldToken = held.fencingToken();
            held.close();
            LockHold taken = waiter.get(10, TimeUnit.SECONDS);
            assertTrue(taken.fencingToken() > heldToken, "the real grant's token follows the holder's");
            assertEquals(inspector.commands().hget(name, field + ":token"), Long.toString(taken.fencingToken()),
                    "the token is the one Redis granted");
            taken.close();
        }
    }

    private static String sha1Hex(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
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
