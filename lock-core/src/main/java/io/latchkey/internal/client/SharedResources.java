package io.latchkey.internal.client;

import io.latchkey.internal.time.StopAwareTask;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of one {@code LockClient}, made once and shared by everything it connects: one
 * timer, which Lettuce uses too (command timeouts, reconnect delays) and on which every delay of
 * the client is scheduled (wait bounds, renewals, retries, settling), and one set of Lettuce event
 * loops and computation threads, shared by the client's own topology and every RedLock master.
 * Closing it is the last step of closing the client.
 */
final class SharedResources implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SharedResources.class);

    /** Fine enough for wait bounds measured in milliseconds, coarse enough to cost nothing idle. */
    private static final long TIMER_TICK_MILLIS = 10;
    private static final int TIMER_WHEEL_SIZE = 512;
    /** Two I/O and two computation threads: a lock client's load never outgrows them. */
    private static final int THREADS = 2;

    /** The longest pause between two attempts to reconnect: a lock client is useless while disconnected. */
    static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

    private final HashedWheelTimer timer;
    private final ClientResources lettuce;

    private SharedResources(HashedWheelTimer timer, ClientResources lettuce) {
        this.timer = timer;
        this.lettuce = lettuce;
    }

    /**
     * Reconnect attempts come at most {@link #MAX_RECONNECT_DELAY} apart (Lettuce's default backs
     * off to 30 s, which would keep locks unusable long after a failover has finished); the jitter
     * keeps many clients from reconnecting in step.
     *
     * @return new resources; close them
     */
    static SharedResources create() {
        HashedWheelTimer timer = new HashedWheelTimer(new DefaultThreadFactory("latchkey-timer", true),
                TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS, TIMER_WHEEL_SIZE);
        ClientResources lettuce = DefaultClientResources.builder()
                .timer(timer)
                .ioThreadPoolSize(THREADS)
                .computationThreadPoolSize(THREADS)
                .reconnectDelay(Delay.equalJitter(Duration.ZERO, MAX_RECONNECT_DELAY, 10, TimeUnit.MILLISECONDS))
                .build();
        return new SharedResources(timer, lettuce);
    }

    /** @return the client's one timer; its tasks only schedule, never block */
    Timer timer() {
        return timer;
    }

    /** @return Lettuce's resources: event loops, computation threads, and {@link #timer()} */
    ClientResources lettuce() {
        return lettuce;
    }

    /**
     * Stops Lettuce's threads, then the timer, which Lettuce no longer needs then; tells the
     * tasks that someone waits for ({@link StopAwareTask}) that they will not run.
     */
    @Override
    public void close() {
        lettuce.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        for (Timeout dropped : timer.stop()) {
            if (dropped.task() instanceof StopAwareTask task) {
                try {
                    task.timerStopped();
                } catch (RuntimeException e) {
                    log.warn("a timer task failed when told that the client closed", e);
                }
            }
        }
    }
}
