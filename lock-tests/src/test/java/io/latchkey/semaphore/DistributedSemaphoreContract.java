package io.latchkey.semaphore;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.DistributedSemaphore;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockTimeoutException;
import io.latchkey.RedisInspector;
import io.latchkey.SemaphorePermit;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.function.Executable;

/**
 * The semaphore row of API.md ("More kinds"), "Semaphore limit", the semaphore's "Remaining
 * details" and the {@code Lease} semantics, one test each, through the public API against real
 * Redis; a subclass says where Redis is and how to take it away. Raw Redis access is used only to
 * look at the keys (none is left once the semaphore is idle) and to remove a permit behind the
 * client's back.
 */
public abstract class DistributedSemaphoreContract {

    /** Watchdog lease of {@link #newClient()}: renewed every 500 ms. */
    protected static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1500);
    /** Bound on one round trip of {@link #newClient()}. */
    protected static final Duration COMMAND_TIMEOUT = Duration.ofMillis(700);
    /** Slack on every "no later than" assertion. */
    protected static final Duration MARGIN = Duration.ofMillis(1000);
    private static final Duration STILL_WAITING = Duration.ofMillis(300);
    private static final Duration LONG = Duration.ofSeconds(30);

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<RedisInspector> inspectors = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "semaphore-contract");
        thread.setDaemon(true);
        return thread;
    });

    /** The semaphore name of the running test, unique to it, without braces. */
    protected String name;

    /** @return the builder pointed at this class's Redis */
    protected abstract LockConfig.Builder addresses(LockConfig.Builder builder);

    /** @return the server that holds {@code key} */
    protected abstract RedisServer serverOf(String key);

    /** @return {@code address} or {@code cluster}, then the URI(s), as {@link PermitHolderMain} takes them */
    protected abstract List<String> holderAddress();

    protected abstract void killRedis();

    protected abstract void restartRedis();

    protected abstract void pauseRedis();

    protected abstract void resumeRedis();

    @BeforeEach
    void nameTheSemaphore(TestInfo test) {
        name = "latchkey-test:" + getClass().getSimpleName() + ":"
                + test.getTestMethod().map(m -> m.getName()).orElse("unknown") + ":" + UUID.randomUUID();
    }

    @AfterEach
    void closeEverything() {
        clients.forEach(LockClient::close);
        clients.clear();
        threads.shutdownNow();
        inspectors.forEach(RedisInspector::close);
        inspectors.clear();
    }

    protected final LockClient newClient() {
        return newClient(WATCHDOG_TIMEOUT);
    }

    /** A client whose permits outlast any test unless returned: only a message can wake their waiters. */
    protected final LockClient newHolderClient() {
        return newClient(LONG);
    }

    private LockClient newClient(Duration watchdog) {
        LockClient client = LockClient.create(addresses(LockConfig.builder())
                .watchdogTimeout(watchdog).commandTimeout(COMMAND_TIMEOUT).build());
        clients.add(client);
        return client;
    }

    /** @return the sorted set of permit id to lease end, as the README documents it for redis-cli */
    protected final String permitsKey() {
        return "latchkey:{" + name + "}:permits";
    }

    protected final String limitKey() {
        return "latchkey:{" + name + "}:permit-limit";
    }

    /** @return raw commands on the server that holds this test's semaphore */
    protected final RedisCommands<String, String> raw() {
        RedisInspector inspector = new RedisInspector(serverOf(permitsKey()).uri());
        inspectors.add(inspector);
        return inspector.commands();
    }

    private <T> Future<T> inThread(Callable<T> task) {
        return threads.submit(task);
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread();
    }

    private static void assertHoldsFor(Duration period, String what, Callable<Boolean> condition) {
        await(what).during(period).atMost(period.plus(MARGIN.multipliedBy(2)))
                .pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO).pollInSameThread().until(condition);
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private void assertIdleWithNoKeys(DistributedSemaphore semaphore) {
        within(MARGIN).until(() -> semaphore.availablePermits() == semaphore.permits());
        within(MARGIN).until(() -> raw().exists(permitsKey(), limitKey()) == 0L);
    }

    // ---- the limit -----------------------------------------------------------------------------

    @Test
    void limitIsNeverExceededByTwoClientsOfEightThreadsEach() throws Exception {
        int permits = 3;
        int rounds = 15;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger entries = new AtomicInteger();
        List<Future<Void>> workers = new ArrayList<>();
        for (LockClient client : List.of(newHolderClient(), newHolderClient())) {
            DistributedSemaphore semaphore = client.getSemaphore(name, permits);
            for (int t = 0; t < 8; t++) {
                workers.add(inThread(() -> {
                    for (int i = 0; i < rounds; i++) {
                        SemaphorePermit permit = semaphore.acquire();
                        try {
                            int now = inside.incrementAndGet();
                            most.accumulateAndGet(now, Math::max);
                            entries.incrementAndGet();
                            // Work inside the section, so that holders overlap if the limit let them.
                            Thread.sleep(2);
                            inside.decrementAndGet();
                        } finally {
                            permit.close();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<Void> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        assertEquals(16 * rounds, entries.get(), "every acquisition was counted");
        assertTrue(most.get() <= permits, "at most " + permits + " holders at once, saw " + most.get());
        assertEquals(permits, most.get(), "the permits were used side by side, not one at a time");
        assertIdleWithNoKeys(newClient().getSemaphore(name, permits));
    }

    @Test
    void aClientWithAnotherLimitGetsIllegalStateNamingBothWhilePermitsAreOutAndTakesOverWhenNoneIs() throws Exception {
        DistributedSemaphore three = newClient().getSemaphore(name, 3);
        DistributedSemaphore five = newClient().getSemaphore(name, 5);
        SemaphorePermit permit = three.tryAcquire(Duration.ZERO).orElseThrow();

        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> five.tryAcquire(Duration.ofSeconds(1)));
        assertTrue(refused.getMessage().contains("3") && refused.getMessage().contains("5"), refused.getMessage());
        assertThrows(IllegalStateException.class, five::acquire);
        ExecutionException async = assertThrows(ExecutionException.class, () -> five.acquireAsync().get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, async.getCause());
        assertEquals(2, five.availablePermits(), "the limit in force counts, not this object's");
        assertEquals(5, five.permits());

        permit.close();
        assertEquals(5, five.availablePermits(), "none out: this object's limit");
        SemaphorePermit underFive = five.tryAcquire(Duration.ZERO).orElseThrow();
        assertEquals(4, three.availablePermits(), "five took over");
        assertThrows(IllegalStateException.class, () -> three.tryAcquire(Duration.ZERO));
        underFive.close();
        assertIdleWithNoKeys(three);
    }

    @Test
    void tryAcquireAnswersEmptyNoLaterThanTheWaitWhenEveryPermitIsOut() throws Exception {
        DistributedSemaphore semaphore = newHolderClient().getSemaphore(name, 2);
        SemaphorePermit first = semaphore.tryAcquire(Duration.ZERO).orElseThrow();
        SemaphorePermit second = semaphore.tryAcquire(Duration.ZERO).orElseThrow();
        assertNotEquals(first.id(), second.id());
        assertEquals(0, semaphore.availablePermits());

        assertTrue(semaphore.tryAcquire(Duration.ZERO).isEmpty(), "one try, nothing free");
        long start = System.nanoTime();
        assertTrue(semaphore.tryAcquire(Duration.ofMillis(400)).isEmpty());
        long waited = millisSince(start);
        assertTrue(waited >= 390 && waited < 400 + MARGIN.toMillis(), "waited " + waited + " ms");
        assertTrue(semaphore.tryAcquireAsync(Duration.ofMillis(100), LONG).get(10, TimeUnit.SECONDS).isEmpty());
        first.close();
        second.close();
        assertIdleWithNoKeys(semaphore);
    }

    // ---- leases --------------------------------------------------------------------------------

    @Test
    void watchdogPermitsAreRenewedWhileHeldAndReturnedByClose() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 3);
        SemaphorePermit blocking = semaphore.acquire();
        SemaphorePermit tried = semaphore.tryAcquire(Duration.ofSeconds(1)).orElseThrow();
        SemaphorePermit async = semaphore.acquireAsync().get(10, TimeUnit.SECONDS);
        assertSame(semaphore, async.semaphore());
        assertEquals(3, Set.of(blocking.id(), tried.id(), async.id()).size(), "ids are unique");

        assertHoldsFor(WATCHDOG_TIMEOUT.multipliedBy(2), "the permits outlive their first lease",
                () -> semaphore.availablePermits() == 0 && blocking.isValid() && tried.isValid() && async.isValid());
        assertTrue(raw().pttl(permitsKey()) > 0, "the keys expire");
        assertFalse(blocking.leaseLost().isDone());

        blocking.close();
        assertFalse(blocking.isValid());
        assertEquals(1, semaphore.availablePermits());
        assertDoesNotThrow(blocking::close, "a second close does nothing");
        assertEquals(1, semaphore.availablePermits(), "and returns nothing more");
        tried.close();
        async.close();
        assertFalse(blocking.leaseLost().isDone(), "a returned permit was not lost");
        assertIdleWithNoKeys(semaphore);
    }

    @Test
    void aFixedLeaseRunsOutAndIsNeverCountedAfterwards() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        long start = System.nanoTime();
        SemaphorePermit permit = semaphore.tryAcquire(Duration.ZERO, Duration.ofMillis(500)).orElseThrow();
        assertEquals(1, semaphore.availablePermits());

        permit.leaseLost().get(500 + MARGIN.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(millisSince(start) >= 450, "not lost before its lease ran out");
        assertFalse(permit.isValid());
        within(MARGIN).until(() -> semaphore.availablePermits() == 2);
        assertThrows(LeaseLostException.class, permit::close);
        assertDoesNotThrow(permit::close, "a second close does nothing");
        assertIdleWithNoKeys(semaphore);
    }

    @Test
    void availablePermitsNeverCountsALeaseThatRanOutEvenBeforeAnyoneCleansUp() throws Exception {
        // A client of its own that then closes, so that nothing but Redis's clock ends the permit.
        LockClient gone = LockClient.create(addresses(LockConfig.builder()).build());
        gone.getSemaphore(name, 2).tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        gone.close();
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        within(Duration.ofMillis(300).plus(MARGIN)).until(() -> semaphore.availablePermits() == 2);
        // Only Redis's own expiry (the highest lease end) removes the keys.
        within(MARGIN).until(() -> raw().exists(permitsKey(), limitKey()) == 0L);
    }

    @Test
    void aCrashedHoldersPermitsComeBackWithinTheWatchdogTimeout() throws Exception {
        DistributedSemaphore semaphore = newHolderClient().getSemaphore(name, 2);
        Process holder = startHolder(2);
        try {
            awaitHolding(holder);
            assertHoldsFor(WATCHDOG_TIMEOUT.plusMillis(500), "the live holder keeps its permits past their first lease",
                    () -> semaphore.availablePermits() == 0);

            holder.destroyForcibly();
            assertTrue(holder.waitFor(10, TimeUnit.SECONDS), "the holder did not die");
            long start = System.nanoTime();
            SemaphorePermit one = semaphore.tryAcquire(WATCHDOG_TIMEOUT.multipliedBy(5)).orElseThrow(
                    () -> new AssertionError("the dead holder's permits never came back"));
            long waited = millisSince(start);
            assertTrue(waited < WATCHDOG_TIMEOUT.plus(MARGIN).toMillis(), "took " + waited + " ms");
            SemaphorePermit two = semaphore.tryAcquire(MARGIN).orElseThrow();
            one.close();
            two.close();
            assertIdleWithNoKeys(semaphore);
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPermitRemovedBehindTheClientsBackIsReportedLostAndItsCloseThrowsLeaseLost() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        SemaphorePermit permit = semaphore.acquire();
        assertEquals(1L, raw().zrem(permitsKey(), permit.id()));

        permit.leaseLost().get(WATCHDOG_TIMEOUT.dividedBy(3).plus(COMMAND_TIMEOUT).plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
        assertFalse(permit.isValid());
        assertThrows(LeaseLostException.class, permit::close);
        assertDoesNotThrow(permit::close);
        assertEquals(2, semaphore.availablePermits());
    }

    @Test
    void aPermitWhoseLeaseCannotBeConfirmedWhileRedisIsPausedIsReportedLost() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        SemaphorePermit permit = semaphore.acquire();
        pauseRedis();
        try {
            permit.leaseLost().get(WATCHDOG_TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
            assertFalse(permit.isValid());
        } finally {
            resumeRedis();
        }
        assertThrows(LeaseLostException.class, permit::close);
        // The client ends the permit it gave up for lost once Redis answers again.
        within(Duration.ofSeconds(5)).until(() -> semaphore.availablePermits() == 2);
        assertIdleWithNoKeys(semaphore);
    }

    // ---- waiting -------------------------------------------------------------------------------

    @Test
    void closeWakesOneWaiterAndTheNextCloseTheNext() throws Exception {
        DistributedSemaphore holders = newHolderClient().getSemaphore(name, 1);
        SemaphorePermit held = holders.acquire();
        DistributedSemaphore waiters = newHolderClient().getSemaphore(name, 1);
        Callable<SemaphorePermit> waiter = () -> waiters.tryAcquire(LONG).orElseThrow();
        Future<SemaphorePermit> one = inThread(waiter);
        Future<SemaphorePermit> two = inThread(waiter);
        assertHoldsFor(STILL_WAITING, "both wait", () -> !one.isDone() && !two.isDone());

        long start = System.nanoTime();
        held.close();
        within(MARGIN).until(() -> one.isDone() || two.isDone());
        assertTrue(millisSince(start) < MARGIN.toMillis(), "woken by the message, not by a lease");
        Future<SemaphorePermit> winner = one.isDone() ? one : two;
        Future<SemaphorePermit> other = winner == one ? two : one;
        assertHoldsFor(STILL_WAITING, "one permit, one waiter in", () -> !other.isDone());

        winner.get().close();
        SemaphorePermit last = other.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
        last.close();
        assertIdleWithNoKeys(holders);
    }

    @Test
    void anInterruptedAcquireThrowsAndLeavesNothing() throws Exception {
        assertInterruptLeavesNothing(semaphore -> semaphore.acquire());
    }

    @Test
    void anInterruptedTryAcquireThrowsAndLeavesNothing() throws Exception {
        assertInterruptLeavesNothing(semaphore -> semaphore.tryAcquire(LONG).orElseThrow());
        assertInterruptLeavesNothing(semaphore -> semaphore.tryAcquire(LONG, LONG).orElseThrow());
    }

    private interface Acquire {
        SemaphorePermit from(DistributedSemaphore semaphore) throws Exception;
    }

    private void assertInterruptLeavesNothing(Acquire acquire) throws Exception {
        DistributedSemaphore semaphore = newHolderClient().getSemaphore(name, 1);
        SemaphorePermit held = semaphore.acquire();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<SemaphorePermit> waiter = inThread(() -> {
            waiterThread.set(Thread.currentThread());
            return acquire.from(semaphore);
        });
        within(Duration.ofSeconds(10)).until(() -> waiterThread.get() != null
                && waiterThread.get().getState() == Thread.State.WAITING);
        waiterThread.get().interrupt();
        ExecutionException thrown = assertThrows(ExecutionException.class, () -> waiter.get(10, TimeUnit.SECONDS));
        assertInstanceOf(InterruptedException.class, thrown.getCause());

        held.close();
        assertEquals(1, semaphore.availablePermits(), "the interrupted waiter took nothing");
        assertIdleWithNoKeys(semaphore);
    }

    @Test
    void cancellingAPendingAcquireAsyncLeavesNothing() throws Exception {
        DistributedSemaphore semaphore = newHolderClient().getSemaphore(name, 1);
        SemaphorePermit held = semaphore.acquire();
        CompletableFuture<SemaphorePermit> pending = semaphore.acquireAsync();
        CompletableFuture<Optional<SemaphorePermit>> pendingTry = semaphore.tryAcquireAsync(LONG, LONG);
        assertHoldsFor(STILL_WAITING, "they wait", () -> !pending.isDone() && !pendingTry.isDone());
        assertTrue(pending.cancel(true));
        assertTrue(pendingTry.cancel(true));
        held.close();
        assertHoldsFor(STILL_WAITING, "no cancelled acquisition took the permit", () -> semaphore.availablePermits() == 1);
        assertIdleWithNoKeys(semaphore);
    }

    @Test
    void asyncAcquisitionsCompleteWithPermitsThatAnyThreadCloses() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 1);
        SemaphorePermit permit = semaphore.acquireAsync().get(10, TimeUnit.SECONDS);
        CompletableFuture<Optional<SemaphorePermit>> waiting = semaphore.tryAcquireAsync(LONG, Duration.ofSeconds(10));
        assertHoldsFor(STILL_WAITING, "waits while the permit is out", () -> !waiting.isDone());
        inThread(() -> {
            permit.close();
            return null;
        }).get(10, TimeUnit.SECONDS);
        SemaphorePermit next = waiting.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertTrue(next.isValid());
        next.close();
        assertIdleWithNoKeys(semaphore);
    }

    // ---- Redis down or slow --------------------------------------------------------------------

    @Test
    void redisDownFailsEveryCallWithLockExceptionWithinTheCommandTimeoutAndTheClientRecovers() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 2);
        semaphore.tryAcquire(Duration.ZERO).orElseThrow().close();
        killRedis();
        try {
            assertFailsFast("availablePermits", semaphore::availablePermits);
            assertFailsFast("acquire", semaphore::acquire);
            // A wait rides out a short outage for as long as it lasts, and at least the command
            // timeout: one shorter than that throws once the command timeout is over.
            assertFailsFast("tryAcquire", () -> semaphore.tryAcquire(COMMAND_TIMEOUT.dividedBy(2)));
            assertFailsFast("acquireAsync", () -> join(semaphore.acquireAsync()));
            assertFailsFast("tryAcquireAsync", () -> join(semaphore.tryAcquireAsync(COMMAND_TIMEOUT.dividedBy(2), LONG)));
        } finally {
            restartRedis();
        }
        within(Duration.ofSeconds(20)).ignoreExceptions().until(() -> semaphore.tryAcquire(Duration.ZERO).map(permit -> {
            permit.close();
            return true;
        }).orElse(false));
        assertIdleWithNoKeys(semaphore);
    }

    @Test
    void redisTooSlowFailsWithLockTimeoutExceptionAndLeavesNoPermitBehind() throws Exception {
        DistributedSemaphore semaphore = newClient().getSemaphore(name, 1);
        pauseRedis();
        try {
            long start = System.nanoTime();
            assertThrows(LockTimeoutException.class, semaphore::acquire);
            assertTrue(millisSince(start) < COMMAND_TIMEOUT.plus(MARGIN).toMillis(), "took " + millisSince(start) + " ms");
        } finally {
            resumeRedis();
        }
        // The acquire may have run once Redis woke up: the client undoes it.
        within(Duration.ofSeconds(5)).until(() -> semaphore.availablePermits() == 1);
        assertIdleWithNoKeys(semaphore);
    }

    private static void join(CompletableFuture<?> future) throws Throwable {
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    private static void assertFailsFast(String call, Executable executable) {
        long start = System.nanoTime();
        assertThrows(LockException.class, executable, call);
        long took = millisSince(start);
        assertTrue(took < COMMAND_TIMEOUT.plus(MARGIN).toMillis(), call + " took " + took + " ms");
    }

    // ---- bad arguments -------------------------------------------------------------------------

    @Test
    void badArgumentsAreRejectedNamingTheArgument() {
        LockClient client = newClient();
        assertThrows(NullPointerException.class, () -> client.getSemaphore(null, 1));
        assertThrows(IllegalArgumentException.class, () -> client.getSemaphore("", 1));
        for (int permits : new int[] {0, -1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> client.getSemaphore(name, permits));
            assertTrue(e.getMessage().contains("permits"), e.getMessage());
        }
        DistributedSemaphore semaphore = client.getSemaphore(name, 1);
        assertNamed(IllegalArgumentException.class, "waitTime", () -> semaphore.tryAcquire(Duration.ofMillis(-1)));
        assertNamed(IllegalArgumentException.class, "waitTime", () -> semaphore.tryAcquire(Duration.ofMillis(-1), LONG));
        assertNamed(IllegalArgumentException.class, "waitTime", () -> semaphore.tryAcquireAsync(Duration.ofMillis(-1), LONG));
        for (Duration lease : List.of(Duration.ZERO, Duration.ofMillis(-1))) {
            assertNamed(IllegalArgumentException.class, "leaseTime", () -> semaphore.tryAcquire(Duration.ZERO, lease));
            assertNamed(IllegalArgumentException.class, "leaseTime", () -> semaphore.tryAcquireAsync(Duration.ZERO, lease));
        }
        assertNamed(NullPointerException.class, "waitTime", () -> semaphore.tryAcquire(null));
        assertNamed(NullPointerException.class, "waitTime", () -> semaphore.tryAcquire(null, LONG));
        assertNamed(NullPointerException.class, "leaseTime", () -> semaphore.tryAcquire(Duration.ZERO, null));
        assertNamed(NullPointerException.class, "leaseTime", () -> semaphore.tryAcquireAsync(Duration.ZERO, null));
        assertEquals(1, semaphore.availablePermits(), "nothing was taken");
    }

    private static void assertNamed(Class<? extends RuntimeException> type, String argument, Executable call) {
        RuntimeException e = assertThrows(type, call);
        assertTrue(String.valueOf(e.getMessage()).contains(argument), "names " + argument + ": " + e.getMessage());
    }

    // ---- the crashed holder's JVM ----------------------------------------------------------------

    private Process startHolder(int take) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), PermitHolderMain.class.getName()));
        command.addAll(holderAddress());
        command.addAll(List.of(name, "2", Integer.toString(take), Long.toString(WATCHDOG_TIMEOUT.toMillis())));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads the child's output until it says it holds its permits; keeps draining it afterwards. */
    private static void awaitHolding(Process holder) throws Exception {
        CompletableFuture<Void> holding = new CompletableFuture<>();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.equals(PermitHolderMain.HOLDING)) {
                        holding.complete(null);
                    }
                }
                holding.completeExceptionally(new IllegalStateException("the holder exited before holding"));
            } catch (IOException e) {
                holding.completeExceptionally(e);
            }
        }, "permit-holder-output");
        reader.setDaemon(true);
        reader.start();
        try {
            holding.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            synchronized (output) {
                throw new AssertionError("the holder did not take its permits; its output:\n" + output, e);
            }
        }
    }
}
