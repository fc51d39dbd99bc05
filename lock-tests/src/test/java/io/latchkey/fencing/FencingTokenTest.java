package io.latchkey.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.OneRedis;
import io.latchkey.internal.lock.LockKeys;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fencing tokens of the plain and the fair lock against one real Redis: positive, one per hold,
 * strictly increasing per lock name across owners, clients, a lock key deleted behind the
 * holder's back, and names that share a hash slot (and so a counter); and bounded memory: an idle
 * lock leaves nothing behind but its slot's counter, {@code latchkey:fence:{S}}, never a key of
 * its own.
 */
class FencingTokenTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long TIMEOUT_SECONDS = 5;

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private final List<LockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient newClient() {
        LockClient client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .watchdogTimeout(LEASE).commandTimeout(Duration.ofSeconds(2)).build());
        clients.add(client);
        return client;
    }

    private static String newName(String test) {
        return "latchkey-test:fencing:" + test + ":" + UUID.randomUUID();
    }

    private static LockHold acquire(DistributedLock lock, long owner) throws Exception {
        return lock.acquireAsync(owner).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void tokensArePositiveAndStrictlyIncreaseAcrossOwnersAndClients() throws Exception {
        String name = newName("owners");
        List<LockClient> both = List.of(newClient(), newClient());
        long previous = 0;
        for (int i = 0; i < 20; i++) {
            // Each release deletes the lock key, so every hold here also begins on a re-created key.
            LockHold hold = acquire(both.get(i % 2).getLock(name), 1 + i % 3);
            assertThat(hold.fencingToken()).as("hold %d", i).isGreaterThan(previous);
            previous = hold.fencingToken();
            hold.close();
        }
        assertThat(previous).isPositive();
    }

    @Test
    void aWaiterThatGetsTheLockGetsAGreaterTokenThanTheHolderBeforeIt() throws Exception {
        String name = newName("waiter");
        LockHold first = acquire(newClient().getLock(name), 1);
        CompletableFuture<LockHold> waiting = newClient().getLock(name).acquireAsync(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(LockKeys.of(name).channel()) == 1);
        assertThat(waiting).isNotDone();

        first.close();
        LockHold second = waiting.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        second.close();
    }

    @Test
    void reEntriesShareTheHoldsTokenWhichTheLockHashKeepsAndTheNextHoldHasAGreaterOne() throws Exception {
        String name = newName("reentry");
        DistributedLock lock = newClient().getLock(name);
        LockHold outer = acquire(lock, 7);
        LockHold inner = acquire(lock, 7);
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(tokenFields(name)).as("the lock hash keeps the hold's token beside its count")
                .hasSize(1).containsValue(Long.toString(outer.fencingToken()));
        // The field of the hold in Redis: <client>:7:token without local hand-off (PlainLockTest
        // checks it), the client's cohort's own owner id with it, the default (LocalHandOffTest).
        String tokenField = tokenFields(name).keySet().iterator().next();
        assertThat(REDIS.commands().hget(name, tokenField.substring(0, tokenField.length() - ":token".length())))
                .as("the hold count beside the token").isNotNull();

        inner.close();
        assertThat(outer.isValid()).isTrue();
        LockHold again = acquire(lock, 7);
        assertThat(again.fencingToken()).as("a re-entry while the hold lasts").isEqualTo(outer.fencingToken());
        again.close();
        outer.close();

        LockHold next = acquire(lock, 7);
        assertThat(next.fencingToken()).as("the same owner's next hold").isGreaterThan(outer.fencingToken());
        next.close();
    }

    @Test
    void aLockKeyDeletedBehindTheHoldersBackIsRecreatedWithAGreaterToken() throws Exception {
        String name = newName("deleted");
        LockHold holder = acquire(newClient().getLock(name), 1);
        assertThat(REDIS.commands().del(name)).isEqualTo(1L);

        LockHold next = acquire(newClient().getLock(name), 2);
        assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());

        // The first holder's client has not renewed since; its release finds the hold gone.
        assertThatThrownBy(holder::close).isInstanceOf(LeaseLostException.class);
        assertThat(holder.leaseLost()).isDone();
        assertThat(next.isValid()).isTrue();
        next.close();
        assertThat(REDIS.commands().exists(name)).isZero();
    }

    @Test
    void namesInOneHashSlotShareACounterAndTheTokensOfEachStillIncrease() throws Exception {
        String tag = "{latchkey-test:fencing:" + UUID.randomUUID() + "}";
        String untagged = nameInSlotOf(tag);
        List<String> names = List.of(tag + ":orders", tag + ":payments", untagged);
        LockClient client = newClient();
        Map<String, Long> last = new LinkedHashMap<>();
        long highest = 0;
        for (int round = 0; round < 5; round++) {
            for (String name : names) {
                LockHold hold = acquire(client.getLock(name), 1);
                assertThat(hold.fencingToken()).as("%s, round %d", name, round).isGreaterThan(last.getOrDefault(name, 0L));
                last.put(name, hold.fencingToken());
                highest = Math.max(highest, hold.fencingToken());
                hold.close();
            }
        }

        String counter = FenceCounters.keyOf(tag);
        assertThat(countersOf(SlotHash.getSlot(tag))).as("one counter for the slot").containsExactly(counter);
        // With local hand-off on (the default), a hold taken in Redis reserves a block of 1024
        // tokens for the client's local hand-offs: the counter is the block's last.
        assertThat(Long.parseLong(REDIS.commands().get(counter))).as("the counter is the last token the slot gave out")
                .isBetween(highest, highest + 1023);
    }

    @Test
    void aThousandIdleLocksLeaveOnlyTheCountersOfTheirSlots() throws Exception {
        REDIS.commands().flushall();
        LockClient client = newClient();
        Set<String> expectedCounters = new HashSet<>();
        String prefix = "latchkey-test:fencing:idle:" + UUID.randomUUID() + ":";
        for (int batch = 0; batch < 10; batch++) {
            List<CompletableFuture<LockHold>> holds = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String name = prefix + (batch * 100 + i);
                expectedCounters.add(FenceCounters.keyOf(name));
                holds.add(client.getLock(name).acquireAsync(1));
            }
            for (CompletableFuture<LockHold> hold : holds) {
                hold.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).close();
            }
        }

        Set<String> keys = allKeys();
        assertThat(keys).as("nothing but one counter per slot used").isEqualTo(expectedCounters);
        for (String counter : keys) {
            assertThat(REDIS.commands().pttl(counter)).as("%s never expires", counter).isEqualTo(-1L);
        }
    }

    @Test
    void fairLockTokensIncreaseAcrossOwnersInLine() throws Exception {
        String name = newName("fair");
        LockClient first = newClient();
        LockClient second = newClient();
        String queue = LockKeys.of(name).derived("queue");
        LockHold holder = acquire(first.getFairLock(name), 1);
        CompletableFuture<LockHold> secondInLine = second.getFairLock(name).acquireAsync(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.commands().llen(queue) == 1);
        CompletableFuture<LockHold> thirdInLine = first.getFairLock(name).acquireAsync(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> REDIS.commands().llen(queue) == 2);

        holder.close();
        LockHold next = secondInLine.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
        next.close();
        LockHold last = thirdInLine.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(last.fencingToken()).isGreaterThan(next.fencingToken());
        last.close();

        LockHold again = acquire(second.getFairLock(name), 2);
        assertThat(again.fencingToken()).isGreaterThan(last.fencingToken());
        again.close();
        assertThat(allKeys()).as("the idle fair lock leaves no key of its own").noneMatch(key -> key.contains(name));
    }

    /** @return the fields of the lock hash that hold a token, with their values */
    private static Map<String, String> tokenFields(String name) {
        Map<String, String> fields = new LinkedHashMap<>(REDIS.commands().hgetall(name));
        fields.keySet().removeIf(field -> !field.endsWith(":token"));
        return fields;
    }

    /** @return the counter keys in the keyspace that belong to {@code slot} */
    private static List<String> countersOf(int slot) {
        return allKeys().stream().filter(key -> key.startsWith("latchkey:fence:") && SlotHash.getSlot(key) == slot).toList();
    }

    private static Set<String> allKeys() {
        Set<String> keys = new HashSet<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = REDIS.commands().scan(cursor);
            keys.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        return keys;
    }

    /** @return a name without braces whose slot is {@code tagged}'s */
    private static String nameInSlotOf(String tagged) {
        int slot = SlotHash.getSlot(tagged);
        for (int i = 0; ; i++) {
            String name = "latchkey-test:fencing:same-slot:" + i;
            if (SlotHash.getSlot(name) == slot) {
                return name;
            }
        }
    }
}
