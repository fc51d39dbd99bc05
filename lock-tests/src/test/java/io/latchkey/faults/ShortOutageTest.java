package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Lease;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * API.md, "a short outage during a wait": a wait on a free lock rides out Redis stopped for half
 * a second and started again on the same port, and Redis loading its data ({@code LOADING}), for
 * every kind and for the blocking and the async forms; closing the client ends such a wait; nothing
 * is left held that the caller does not know of. Before the change each of these tries failed at
 * once with {@code LockConnectionException} ("Currently not connected") or
 * {@code LockRefusedException} ({@code LOADING}). Not timing-bound: each wait is many times the
 * outage, so these run beside other test JVMs; the tight bounds are {@link ShortOutageBoundsTest}'s.
 */
class ShortOutageTest extends ShortOutageFixture {

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aWaitOnAFreeLockRidesOutRedisStoppedForHalfASecond(Kind kind) throws InterruptedException {
        String name = newName(kind);
        Acquirer lock = kind.on(kind.client(), name);
        CompletableFuture<Void> restarted = stopForAnOutage();

        Optional<? extends Lease> held = lock.acquire(WAIT);

        assertThat(held).as("acquired once Redis is back").isPresent();
        assertThat(restarted).isDone();
        held.get().close();
        nothingLeftHeld(kind, name);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAsyncWaitOnAFreeLockRidesOutRedisStoppedForHalfASecond(Kind kind) throws InterruptedException {
        String name = newName(kind);
        Acquirer lock = kind.on(kind.client(), name);
        CompletableFuture<Void> restarted = stopForAnOutage();

        Optional<? extends Lease> held = lock.acquireAsync(WAIT).join();

        assertThat(held).as("acquired once Redis is back").isPresent();
        assertThat(restarted).isDone();
        held.get().close();
        nothingLeftHeld(kind, name);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aWaitOnAFreeLockRidesOutRedisLoadingItsData(Kind kind) throws InterruptedException {
        String name = newName(kind);
        Acquirer lock = kind.on(kind.client(), name);
        Acquirer asyncLock = kind.on(kind.client(), name + "-async");
        CompletableFuture<Object> reloaded = loadForHalfASecond();

        CompletableFuture<? extends Optional<? extends Lease>> async = asyncLock.acquireAsync(WAIT);
        Optional<? extends Lease> held = lock.acquire(WAIT);
        Optional<? extends Lease> heldAsync = async.join();

        assertThat(held).as("acquired once Redis has loaded").isPresent();
        assertThat(heldAsync).as("the async form, acquired once Redis has loaded").isPresent();
        assertThat(reloaded.join()).isEqualTo("OK");
        held.get().close();
        heldAsync.get().close();
        nothingLeftHeld(kind, name);
        nothingLeftHeld(kind, name + "-async");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void closingTheClientWhileAWaitRidesOutAnOutageEndsTheWait(Kind kind) {
        LockClient closing = LockClient.create(kind.config().build());
        Acquirer lock = kind.on(closing, newName(kind));
        server.stop();
        CompletableFuture<? extends Optional<? extends Lease>> waiting = lock.acquireAsync(WAIT);
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> true);
        assertThat(waiting).isNotDone();

        long start = System.nanoTime();
        closing.close();

        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(LockException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
}
