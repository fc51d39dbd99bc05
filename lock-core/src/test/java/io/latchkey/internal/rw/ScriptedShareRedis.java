package io.latchkey.internal.rw;

import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ShareRedis} whose every call waits until the test answers it, on the manual timer's
 * ticker: the test chooses when each answer arrives relative to the readers' tries.
 */
final class ScriptedShareRedis implements ShareRedis {

    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(100);
    static final Duration LEASE = Duration.ofSeconds(3);

    final ManualTimer timer;
    final Deque<CompletableFuture<TryResult>> tries = new ArrayDeque<>();
    final Deque<CompletableFuture<Void>> releases = new ArrayDeque<>();
    final Deque<CompletableFuture<Reserved>> reserves = new ArrayDeque<>();
    final List<Long> reservedFor = new ArrayList<>();
    final List<Long> ended = new ArrayList<>();
    RenewedLease renewed;
    boolean renewing;
    Runnable connectionLost;
    /** Runs as a {@link #stopRenewing} call begins: what another thread did just before it took effect. */
    Runnable beforeStopRenewing = () -> { };

    ScriptedShareRedis(ManualTimer timer) {
        this.timer = timer;
    }

    @Override
    public String lockName() {
        return "doc";
    }

    @Override
    public Ticker ticker() {
        return timer.ticker();
    }

    @Override
    public Duration commandTimeout() {
        return COMMAND_TIMEOUT;
    }

    @Override
    public CompletableFuture<TryResult> tryShareHold(LeaseTerm lease) {
        CompletableFuture<TryResult> answer = new CompletableFuture<>();
        tries.add(answer);
        return answer;
    }

    @Override
    public CompletableFuture<Void> releaseShareHold() {
        renewing = false;
        CompletableFuture<Void> answer = new CompletableFuture<>();
        releases.add(answer);
        return answer;
    }

    @Override
    public void endShareHold(long token) {
        ended.add(token);
    }

    @Override
    public CompletableFuture<Reserved> reserve(long token) {
        reservedFor.add(token);
        CompletableFuture<Reserved> answer = new CompletableFuture<>();
        reserves.add(answer);
        return answer;
    }

    @Override
    public CompletableFuture<Boolean> holdsShareHold() {
        return CompletableFuture.completedFuture(renewing);
    }

    @Override
    public void renew(RenewedLease lease) {
        renewed = lease;
        renewing = true;
    }

    @Override
    public void stopRenewing(RenewedLease lease) {
        Runnable before = beforeStopRenewing;
        beforeStopRenewing = () -> { };
        before.run();
        // As the watchdog's: only that lease stops, not another of the same field registered since.
        if (renewed == lease) {
            renewing = false;
        }
    }

    @Override
    public Runnable observeConnection(Runnable lost) {
        connectionLost = lost;
        return () -> connectionLost = null;
    }

    /** Answers the oldest try: granted with {@code token}, its lease from now. */
    void grant(long token) {
        long until = timer.ticker().read() + LEASE.toNanos();
        tries.remove().complete(TryResult.acquired(new TryResult.Grant() {
            @Override
            public long fencingToken() {
                return token;
            }

            @Override
            public long confirmedUntilNanos() {
                return until;
            }

            @Override
            public void start(Hold hold) {
                throw new AssertionError("the share's own grant is never recorded as an owner's hold");
            }
        }));
    }
}
