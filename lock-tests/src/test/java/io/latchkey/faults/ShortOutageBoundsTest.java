package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Lease;
import io.latchkey.LockException;
import io.latchkey.TimingBound;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * API.md, "a short outage during a wait", the bounds: while Redis is down a zero wait still throws
 * within the command timeout, and a wait shorter than the outage throws once it ends, not later;
 * nothing is left held that the caller does not know of. Timing-bound: the bounds are a few
 * command timeouts.
 */
@TimingBound
class ShortOutageBoundsTest extends ShortOutageFixture {

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aZeroWaitWhileRedisIsDownStillThrowsWithinTheCommandTimeout(Kind kind) {
        String name = newName(kind);
        Acquirer lock = kind.on(kind.client(), name);
        server.stop();

        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.acquire(Duration.ZERO)).isInstanceOf(LockException.class);
        CompletableFuture<? extends Optional<? extends Lease>> async = lock.acquireAsync(Duration.ZERO);
        assertThatThrownBy(async::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(LockException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // Two calls, each bounded by the command timeout plus one try's round trip.
        assertThat(took).isLessThan(COMMAND_TIMEOUT.multipliedBy(4));
        server.restart();
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            Optional<? extends Lease> held = lock.acquire(Duration.ZERO);
            held.ifPresent(Lease::close);
            return held.isPresent();
        });
        nothingLeftHeld(kind, name);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aWaitShorterThanTheOutageThrowsOnceItEnds(Kind kind) {
        String name = newName(kind);
        Acquirer lock = kind.on(kind.client(), name);
        // Warmed up first, once the client has reconnected after the last test's restart: the
        // first use of a client in the JVM (class loading, script loading) took seconds under
        // load, before the wait's first try had even failed.
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            Optional<? extends Lease> held = lock.acquire(Duration.ZERO);
            held.ifPresent(Lease::close);
            return held.isPresent();
        });
        server.stop();
        // Two command timeouts: long enough for tries to be made again on the timer.
        Duration wait = COMMAND_TIMEOUT.multipliedBy(2);

        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.acquire(wait)).isInstanceOf(LockException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // At most the wait, then a settling of a try whose answer was lost and the last try, each
        // bounded by the command timeout (README, "A short outage during a wait"); the margin is
        // for a loaded machine, and still well below WAIT.
        assertThat(took).as("tried for the whole wait, then threw")
                .isGreaterThanOrEqualTo(wait)
                .isLessThan(wait.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(Duration.ofSeconds(2)));
    }
}
