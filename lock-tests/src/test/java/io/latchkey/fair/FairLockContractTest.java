package io.latchkey.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.contract.SingleServerContract;
import io.latchkey.contract.OwnerThread;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract for the fair lock ({@link LockClient#getFairLock(String)}) against one real Redis
 * server, plus what only the fair lock promises: arrival order across clients, a wake-up for the
 * first in line only, and no queue entry left by a waiter that gives up, whatever the way.
 */
class FairLockContractTest extends SingleServerContract {

    private static final Duration QUEUE_WAIT = Duration.ofSeconds(10);

    private static FairLockRedis raw;

    @BeforeAll
    static void connectFairLockRedis() {
        raw = new FairLockRedis(redis().uri());
    }

    @AfterAll
    static void closeFairLockRedis() {
        if (raw != null) {
            raw.close();
        }
    }

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getFairLock(name);
    }

    @Test
    void emptyNameIsRejected() {
        LockClient client = newClient();
        assertThrows(IllegalArgumentException.class, () -> client.getFairLock(""));
    }

    @Test
    void waitersOnThreeClientsAcquireInArrivalOrder() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
        List<String> order = new CopyOnWriteArrayList<>();
        List<Future<Boolean>> calls = new ArrayList<>();

        held.lock();
        for (int i = 1; i <= 3; i++) {
            String who = "waiter-" + i;
            DistributedLock lock = lock(newHolderClient(), name);
            Future<Boolean> call = newOwnerThread(who).submit(() -> {
                if (!lock.tryLock(Duration.ofSeconds(30))) {
                    return false;
                }
                order.add(who);
                lock.unlock();
                return true;
            });
            calls.add(call);
            int inLine = i;
            within(QUEUE_WAIT).until(() -> raw.queue(name).size() == inLine);
            // The next one arrives 50 to 100 ms later; meanwhile this one stays in line.
            Duration gap = Duration.ofMillis(ThreadLocalRandom.current().nextLong(50, 101));
            assertHoldsFor(gap, who + " waits in line", () -> raw.queue(name).size() == inLine && !call.isDone());
        }

        held.unlock();
        for (Future<Boolean> call : calls) {
            assertTrue(call.get(20, TimeUnit.SECONDS), "a waiter gave up");
        }
        assertEquals(List.of("waiter-1", "waiter-2", "waiter-3"), order);
        assertEquals(List.of(), raw.keysOf(name), "nothing is left once the lock and its queue are idle");
    }

    @Test
    void unlockWakesOnlyTheFirstInLine() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Void>> acquired = new ArrayList<>();
        List<Future<Boolean>> calls = new ArrayList<>();
        List<OwnerThread> waiters = new ArrayList<>();
        String acquireSha = FairLockRedis.sha1(FairLockRedis.script("acquire.lua"));

        held.lock();
        for (int i = 1; i <= 3; i++) {
            DistributedLock lock = lock(newHolderClient(), name);
            CompletableFuture<Void> got = new CompletableFuture<>();
            acquired.add(got);
            OwnerThread waiter = newOwnerThread("waiter-" + i);
            waiters.add(waiter);
            calls.add(waiter.submit(() -> {
                if (!lock.tryLock(Duration.ofSeconds(30))) {
                    return false;
                }
                got.complete(null);
                release.await(20, TimeUnit.SECONDS);
                lock.unlock();
                return true;
            }));
            int inLine = i;
            within(QUEUE_WAIT).until(() -> raw.queue(name).size() == inLine);
        }
        String channel = FairLockRedis.channelOf(name);
        within(QUEUE_WAIT).until(() -> raw.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) == 3);
        assertHoldsFor(STILL_WAITING, "all three wait", () -> acquired.stream().noneMatch(CompletableFuture::isDone));

        // One parameter per CONFIG call: Redis 6 takes no more (FairLockContractOnRedis6Test).
        Map<String, String> slowlogBefore = new HashMap<>(raw.commands().configGet("slowlog-log-slower-than"));
        slowlogBefore.putAll(raw.commands().configGet("slowlog-max-len"));
        raw.commands().configSet("slowlog-log-slower-than", "0");
        raw.commands().configSet("slowlog-max-len", "10000");
        try {
            raw.commands().slowlogReset();
            held.unlock();
            acquired.get(0).get(5, TimeUnit.SECONDS);
            // The release granted the first in line, which entered on its message; its take (now,
            // or when due if the grant ends before its lease would) has the watchdog's lease, which
            // outlasts the second one's place, so it wakes nobody: the second comes back by its
            // own cadence before that lease ends (a shorter lease wakes it: the next test).
            assertHoldsFor(Duration.ofMillis(300), "the second and third sleep on, and nobody else tries",
                    () -> !acquired.get(1).isDone() && !acquired.get(2).isDone() && acquireCallers(acquireSha).size() <= 1);
            List<String> callers = acquireCallers(acquireSha);
            assertTrue(callers.stream().allMatch(caller -> caller.endsWith(":" + waiters.get(0).id())),
                    "only the first in line may have taken its grant: " + callers);
        } finally {
            slowlogBefore.forEach(raw.commands()::configSet);
        }

        release.countDown();
        for (Future<Boolean> call : calls) {
            assertTrue(call.get(20, TimeUnit.SECONDS));
        }
        assertEquals(List.of(), raw.keysOf(name));
    }

    @Test
    void theNewFirstInLineNoticesThatTheLeaseOfTheHolderBeforeItRanOut() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
        DistributedLock first = lock(newHolderClient(), name);
        DistributedLock second = lock(newHolderClient(), name);
        long firstOwner = newOwnerId();
        long secondOwner = newOwnerId();
        Duration shortLease = Duration.ofMillis(300);

        held.lock();
        CompletableFuture<Void> firstLocked = first.lockAsync(shortLease, firstOwner); // never unlocked
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 1);
        CompletableFuture<Void> secondLocked = second.lockAsync(secondOwner);
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 2);
        assertHoldsFor(STILL_WAITING, "both wait", () -> !firstLocked.isDone() && !secondLocked.isDone());

        held.unlock();
        firstLocked.get(5, TimeUnit.SECONDS);
        long grantedAt = System.nanoTime();
        // No message will come: the first holder's lease just runs out, and the second waiter,
        // asleep behind the first when the lock changed hands, must be watching it by then.
        secondLocked.get(shortLease.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(millisSince(grantedAt) >= shortLease.toMillis() - 100, "taken before the lease ran out");
        assertTrue(second.isHeldBy(secondOwner));
        second.unlockAsync(secondOwner).get(5, TimeUnit.SECONDS);
        assertEquals(List.of(), raw.keysOf(name));
    }

    /** @return the caller field of each acquire script call in SLOWLOG, oldest first */
    private static List<String> acquireCallers(String acquireSha) {
        List<String> callers = new ArrayList<>();
        for (Object entry : raw.commands().slowlogGet(10_000)) {
            List<?> args = (List<?>) ((List<?>) entry).get(3);
            String command = String.valueOf(args.get(0));
            String script = args.size() > 1 ? String.valueOf(args.get(1)) : "";
            if (command.equalsIgnoreCase("evalsha") && script.equals(acquireSha)
                    || command.equalsIgnoreCase("eval") && script.startsWith("-- One try at a fair lock")) {
                // EVAL(SHA) script numkeys KEYS... lease caller ...
                int keys = Integer.parseInt(String.valueOf(args.get(2)));
                callers.add(0, String.valueOf(args.get(3 + keys + 1)));
            }
        }
        return callers;
    }

    // ---------------------------------------------------------------------------------------
    // A waiter that gives up leaves no queue entry, whatever the way

    @Test
    void waitersThatTimeOutLeaveNoQueueEntry() throws Exception {
        DistributedLock held = lock(newClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock staying = lock(newClient(), name);
        long stayer = newOwnerId();
        long asyncOwner = newOwnerId();

        held.lock();
        CompletableFuture<Void> stays = staying.lockAsync(stayer);
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 1);

        assertFalse(wanted.tryLock(Duration.ofMillis(300)));
        assertOnlyInLine(name, stayer);
        assertFalse(wanted.tryLock(Duration.ofMillis(100), Duration.ofSeconds(5)));
        assertOnlyInLine(name, stayer);
        assertFalse(wanted.tryLock());
        assertOnlyInLine(name, stayer);
        assertFalse(wanted.tryLockAsync().get(5, TimeUnit.SECONDS));
        assertOnlyInLine(name, stayer);
        assertFalse(wanted.tryLockAsync(Duration.ofMillis(200), Duration.ofSeconds(5), asyncOwner).get(5, TimeUnit.SECONDS));
        assertOnlyInLine(name, stayer);

        held.unlock();
        stays.get(5, TimeUnit.SECONDS);
        staying.unlockAsync(stayer).get(5, TimeUnit.SECONDS);
        assertEquals(List.of(), raw.keysOf(name));
    }

    @Test
    void interruptedWaitersLeaveNoQueueEntry() throws Exception {
        DistributedLock held = lock(newClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        OwnerThread waiter = newOwnerThread("waiter");

        held.lock();
        List<InterruptibleAcquire> flavours = List.of(
                lock -> {
                    lock.lockInterruptibly();
                    return true;
                },
                lock -> {
                    lock.lockInterruptibly(Duration.ofSeconds(5));
                    return true;
                },
                lock -> lock.tryLock(Duration.ofSeconds(20)),
                lock -> lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(5)));
        for (InterruptibleAcquire flavour : flavours) {
            Future<Object> outcome = waiter.submit(() -> {
                try {
                    return flavour.acquire(wanted);
                } catch (InterruptedException e) {
                    return e;
                }
            });
            within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 1);
            waiter.thread().interrupt();
            assertInstanceOf(InterruptedException.class, outcome.get(5, TimeUnit.SECONDS));
            assertEquals(List.of(), raw.queue(name), "the interrupted waiter left the queue before returning");
            assertEquals(Map.of(), raw.timeouts(name));
        }
        held.unlock();
        assertEquals(List.of(), raw.keysOf(name));
    }

    @Test
    void cancelledLockAsyncLeavesNoQueueEntry() throws Exception {
        DistributedLock held = lock(newClient(), name);
        DistributedLock wanted = lock(newClient(), name);
        DistributedLock staying = lock(newClient(), name);
        long stayer = newOwnerId();

        held.lock();
        CompletableFuture<Void> first = wanted.lockAsync(newOwnerId());
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 1);
        CompletableFuture<Void> stays = staying.lockAsync(stayer);
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 2);
        CompletableFuture<Boolean> last = wanted.tryLockAsync(Duration.ofSeconds(20), Duration.ofSeconds(5), newOwnerId());
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 3);

        assertTrue(first.cancel(true));
        assertTrue(last.cancel(true));
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 1);
        assertOnlyInLine(name, stayer);

        held.unlock();
        stays.get(5, TimeUnit.SECONDS);
        assertTrue(staying.isHeldBy(stayer), "the waiter behind the cancelled first one gets the lock");
        staying.unlockAsync(stayer).get(5, TimeUnit.SECONDS);
        assertEquals(List.of(), raw.keysOf(name));
    }

    @Test
    void aWaiterThatGivesUpWhileWokenPassesTheWakeUpOn() throws Exception {
        DistributedLock held = lock(newHolderClient(), name);
        DistributedLock wanted = lock(newHolderClient(), name);
        DistributedLock staying = lock(newHolderClient(), name);
        long stayer = newOwnerId();

        held.lock();
        CompletableFuture<Void> first = wanted.lockAsync(newOwnerId());
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 1);
        CompletableFuture<Void> second = staying.lockAsync(stayer);
        within(QUEUE_WAIT).until(() -> raw.queue(name).size() == 2);

        // Whichever lands first, the unlock's wake-up of the first waiter or its abandon, the
        // second waiter must learn of the free lock without waiting for any lease or timeout.
        first.cancel(true);
        held.unlock();
        second.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
        staying.unlockAsync(stayer).get(5, TimeUnit.SECONDS);
        within(QUEUE_WAIT).until(() -> raw.keysOf(name).isEmpty());
    }

    private static void assertOnlyInLine(String name, long owner) {
        List<String> queue = raw.queue(name);
        assertEquals(1, queue.size(), "one waiter in line: " + queue);
        assertTrue(queue.get(0).endsWith(":" + owner), "the staying waiter is the one in line: " + queue);
        assertEquals(queue, List.copyOf(raw.timeouts(name).keySet()), "a deadline for each waiter in line, no other");
    }
}
