package io.latchkey.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockEventListener;
import io.latchkey.LockEventListener.AcquireEnded;
import io.latchkey.LockEventListener.AcquireOutcome;
import io.latchkey.LockEventListener.AcquireStarted;
import io.latchkey.LockEventListener.LeaseLost;
import io.latchkey.LockEventListener.Released;
import io.latchkey.LockEventListener.Renewal;
import io.latchkey.LockEventListener.RenewalOutcome;
import io.latchkey.LockHold;
import io.latchkey.OneRedis;
import io.latchkey.RedisInspector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The events SPI against real Redis: what each lock call tells the client's listener. */
class LockEventsTest {

    @RegisterExtension
    static final OneRedis redis = new OneRedis();

    /** Records every event, in order. */
    static final class Recorder implements LockEventListener {
        final List<Object> events = new CopyOnWriteArrayList<>();

        @Override public void acquireStarted(AcquireStarted event) { events.add(event); }
        @Override public void acquireEnded(AcquireEnded event) { events.add(event); }
        @Override public void released(Released event) { events.add(event); }
        @Override public void renewed(Renewal event) { events.add(event); }
        @Override public void leaseLost(LeaseLost event) { events.add(event); }

        <T> List<T> of(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    private static LockClient client(LockEventListener listener, Duration watchdog) {
        return LockClient.create(LockConfig.builder().address(redis.server().uri())
                .watchdogTimeout(watchdog).eventListener(listener).build());
    }

    @Test
    void anAcquisitionAndItsReleaseAreToldWithKindWaitAndTimeHeld() {
        Recorder recorder = new Recorder();
        try (LockClient client = client(recorder, Duration.ofSeconds(30))) {
            DistributedLock lock = client.getLock("events:one");
            long token;
            try (LockHold hold = lock.acquire()) {
                token = hold.fencingToken();
                lock.lock(); // a re-entry: acquired, but no release event until the hold ends
                lock.unlock();
                assertThat(recorder.of(Released.class)).isEmpty();
            }
            assertThat(recorder.of(AcquireStarted.class)).hasSize(2)
                    .allSatisfy(started -> assertThat(started.kind()).isEqualTo("plain"));
            await().until(() -> recorder.of(AcquireEnded.class).size() == 2);
            assertThat(recorder.of(AcquireEnded.class)).hasSize(2).allSatisfy(ended -> {
                assertThat(ended.lockName()).isEqualTo("events:one");
                assertThat(ended.outcome()).isEqualTo(AcquireOutcome.ACQUIRED);
                assertThat(ended.fencingToken()).isEqualTo(token);
            });
            assertThat(recorder.of(Released.class)).singleElement().satisfies(released -> {
                assertThat(released.fencingToken()).isEqualTo(token);
                assertThat(released.kind()).isEqualTo("plain");
                assertThat(released.heldFor()).isPositive().isLessThan(Duration.ofSeconds(10));
            });
        }
    }

    /**
     * With local hand-off, an owner can release its hold in the very completion of its grant,
     * without a round trip. The grant must still be told first: a listener that times holds
     * (Micrometer's {@code latchkey.lock.held}) would else start a task that no release ends.
     */
    @Test
    void aGrantIsToldBeforeAReleaseInItsOwnCompletion() throws Exception {
        Recorder recorder = new Recorder();
        String name = "events:released-in-its-completion";
        try (LockClient client = client(recorder, Duration.ofSeconds(30));
             RedisInspector inspector = new RedisInspector(redis.server().uri())) {
            DistributedLock lock = client.getLock(name);
            lock.lockAsync(1L).join();
            CompletableFuture<Void> second = lock.lockAsync(2L).thenCompose(hold -> lock.unlockAsync(2L));
            await().until(() -> inspector.subscribers(RedisInspector.channelOf(name)) > 0);
            CompletableFuture<Void> third = lock.lockAsync(3L);
            Thread.sleep(200); // both wait in the client, the second first
            lock.unlockAsync(1L).join();
            second.get(5, TimeUnit.SECONDS);
            third.get(5, TimeUnit.SECONDS);
            lock.unlockAsync(3L).join();

            await().until(() -> recorder.of(Released.class).size() == 3 && recorder.of(AcquireEnded.class).size() == 3);
            for (long owner = 1; owner <= 3; owner++) {
                long id = owner;
                int granted = indexOf(recorder, AcquireEnded.class, ended -> ended.ownerId() == id);
                int released = indexOf(recorder, Released.class, done -> done.ownerId() == id);
                assertThat(granted).as("owner %d: its grant before its release in %s", id, recorder.events)
                        .isLessThan(released);
            }
        }
    }

    private static <T> int indexOf(Recorder recorder, Class<T> type, java.util.function.Predicate<T> which) {
        for (int i = 0; i < recorder.events.size(); i++) {
            Object event = recorder.events.get(i);
            if (type.isInstance(event) && which.test(type.cast(event))) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void aWaitThatRunsOutIsTimedOutAndAnInterruptedOneIsInterrupted() throws Exception {
        Recorder recorder = new Recorder();
        try (LockClient client = client(recorder, Duration.ofSeconds(30))) {
            DistributedLock lock = client.getLock("events:busy");
            CompletableFuture<Void> held = lock.lockAsync(7L);
            held.join();
            assertThat(lock.tryLock(Duration.ofMillis(100))).isFalse();
            // The event is told on the thread that completes the attempt, which may be after the
            // caller has woken: wait for it rather than read it at once.
            await().untilAsserted(() -> assertThat(recorder.of(AcquireEnded.class)).last().satisfies(ended -> {
                assertThat(ended.outcome()).isEqualTo(AcquireOutcome.TIMED_OUT);
                assertThat(ended.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(100));
                assertThat(ended.fencingToken()).isZero();
            }));

            CountDownLatch waiting = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                waiting.countDown();
                try {
                    lock.lockInterruptibly();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            });
            waiter.start();
            waiting.await();
            await().until(() -> recorder.of(AcquireStarted.class).size() == 3);
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(interrupted).isTrue();
            await().untilAsserted(() -> assertThat(recorder.of(AcquireEnded.class)).last()
                    .extracting(AcquireEnded::outcome).isEqualTo(AcquireOutcome.INTERRUPTED));
            lock.unlockAsync(7L).join();
        }
    }

    @Test
    void theWatchdogTellsEachRenewalAndALostLease() {
        Recorder recorder = new Recorder();
        try (LockClient client = client(recorder, Duration.ofMillis(600))) {
            DistributedLock lock = client.getLock("events:renewed");
            LockHold hold = lock.acquire();
            await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.of(Renewal.class).isEmpty());
            assertThat(recorder.of(Renewal.class).get(0)).satisfies(renewal -> {
                assertThat(renewal.batchSize()).isEqualTo(1);
                assertThat(renewal.outcome()).isEqualTo(RenewalOutcome.RENEWED);
            });

            redis.commands().del("events:renewed"); // behind the client's back
            await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.of(LeaseLost.class).isEmpty());
            assertThat(recorder.of(LeaseLost.class)).singleElement().satisfies(lost -> {
                assertThat(lost.lockName()).isEqualTo("events:renewed");
                assertThat(lost.fencingToken()).isEqualTo(hold.fencingToken());
            });
            assertThat(recorder.of(Released.class)).isEmpty();
        }
    }

    @Test
    void aListenerThatThrowsIsIgnored() {
        LockEventListener throwing = new LockEventListener() {
            @Override public void acquireStarted(AcquireStarted event) { throw new IllegalStateException("boom"); }
            @Override public void acquireEnded(AcquireEnded event) { throw new IllegalStateException("boom"); }
            @Override public void released(Released event) { throw new IllegalStateException("boom"); }
        };
        try (LockClient client = client(throwing, Duration.ofSeconds(30))) {
            DistributedLock lock = client.getLock("events:throwing");
            lock.lock();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();
            assertThat(lock.isLocked()).isFalse();
        }
    }
}
