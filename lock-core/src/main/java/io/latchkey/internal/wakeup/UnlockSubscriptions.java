package io.latchkey.internal.wakeup;

import io.latchkey.LockException;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.Wakeups;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Reference-counted subscriptions to unlock channels, all carried by one pub/sub connection.
 *
 * <p>The first waiter on a channel subscribes, the last one to leave unsubscribes, at once or,
 * where a linger is set, only if no waiter came back within it (a hot lock keeps its channel). A
 * message wakes as few local waiters as can use it: the one it names, or else the longest-waiting
 * one; {@value #EVERY_WAITER} wakes every waiter that joined under that address, waiters that
 * can all go at once (the readers of a read-write lock), and no other: anyone who may publish can
 * send it, and on another kind's channel it would make every waiter run a script for nothing.
 * When the connection re-subscribes after a reconnect, every waiter of that channel is woken to
 * re-check the lock, because messages sent while it was away are lost; a channel it re-subscribes
 * that no waiter here wants any more is unsubscribed. Thread-safe.
 */
public final class UnlockSubscriptions extends RedisPubSubAdapter<String, String> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UnlockSubscriptions.class);

    /**
     * The message that wakes every local waiter of its channel that joined under this address.
     * No owner is named so: an owner's name is its field, {@code <clientId>:<ownerId>}.
     */
    public static final String EVERY_WAITER = "*";

    private final SubscriptionCommands commands;
    private final Timer timer;
    /** How long a channel stays subscribed after its last waiter left; 0 to leave at once. */
    private final long lingerNanos;
    private final Map<String, ChannelWaiters> channels = new HashMap<>();
    /** Guarded by this: who reads a channel's notices (messages that begin with {@link #NOTICE}). */
    private final Map<String, List<Consumer<String>>> observers = new HashMap<>();
    /** Guarded by {@code this}: told of lost connections, one per observer. */
    private final List<Runnable> lossObservers = new ArrayList<>();
    private boolean closed;

    /**
     * What begins a notice: a message for the client's own machinery (a cohort hold that was
     * force-unlocked), which names no waiter.
     */
    public static final String NOTICE = "!";

    /**
     * @param commands subscribes and unsubscribes on the shared connection; this object must be
     *     registered as that connection's listener
     * @param timer bounds each wait
     */
    public UnlockSubscriptions(SubscriptionCommands commands, Timer timer) {
        this(commands, timer, Duration.ZERO);
    }

    /**
     * @param commands as for {@link #UnlockSubscriptions(SubscriptionCommands, Timer)}
     * @param timer bounds each wait, and ends lingering subscriptions
     * @param linger how long a channel stays subscribed after its last waiter left, so that a hot
     *     lock, whose waiters come and go all the time, is not subscribed and unsubscribed on
     *     every attempt; zero to unsubscribe at once
     */
    public UnlockSubscriptions(SubscriptionCommands commands, Timer timer, Duration linger) {
        this.commands = commands;
        this.timer = timer;
        this.lingerNanos = linger.toNanos();
    }

    /**
     * Joins a channel; the future completes once Redis confirmed the subscription, so that a
     * try made after it cannot miss an unlock.
     *
     * @param channel the unlock channel
     * @param address the waiter's own name in messages that name one waiter; null if the lock
     *     kind sends unaddressed messages
     * @return wakeups for one acquire attempt; close them when done
     */
    public CompletableFuture<Wakeups> join(String channel, @Nullable String address) {
        ChannelWaiters waiters;
        CompletableFuture<Void> subscribed;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(LockExceptions.clientClosed());
            }
            waiters = channels.computeIfAbsent(channel, ChannelWaiters::new);
            if (waiters.references++ == 0 && !waiters.stopLingering()) {
                waiters.subscribed = commands.subscribe(channel);
            }
            // Set by the first join, kept while the channel lingers.
            subscribed = Objects.requireNonNull(waiters.subscribed);
        }
        ChannelWaiters joined = waiters;
        return subscribed.handle((ok, failure) -> {
            Wakeups wakeups = new ChannelWakeups(joined, address, timer, this::leave);
            if (failure != null) {
                wakeups.close();
                throw LockExceptions.subscribeFailed(channel, failure);
            }
            return wakeups;
        });
    }

    /**
     * Joins a channel only if it is already subscribed and confirmed here, which costs no round
     * trip: a waiter that joins before its first try needs no second try to cover the time before
     * the subscription.
     *
     * @param channel the unlock channel
     * @param address as for {@link #join}
     * @return wakeups ready now, or null if the channel is not subscribed here
     */
    public @Nullable Wakeups joinIfSubscribed(String channel, @Nullable String address) {
        synchronized (this) {
            ChannelWaiters waiters = channels.get(channel);
            if (closed || waiters == null || !waiters.subscribedHere()) {
                return null;
            }
            waiters.references++;
            waiters.stopLingering();
            return new ChannelWakeups(waiters, address, timer, this::leave);
        }
    }

    private void leave(ChannelWaiters waiters) {
        synchronized (this) {
            if (--waiters.references > 0 || closed) {
                return;
            }
            if (lingerNanos > 0 && waiters.subscribedHere()) {
                try {
                    waiters.linger = timer.newTimeout(timeout -> lingered(waiters, timeout), lingerNanos, TimeUnit.NANOSECONDS);
                    return;
                } catch (IllegalStateException timerStopped) {
                    // the client is closing: unsubscribe now
                }
            }
            channels.remove(waiters.channel);
            // Ordered after any SUBSCRIBE on the same connection, so a later join re-subscribes.
            unsubscribe(waiters.channel);
        }
    }

    /** A lingering channel's time is up: unsubscribed unless a waiter came back meanwhile. */
    private void lingered(ChannelWaiters waiters, Timeout timeout) {
        synchronized (this) {
            if (waiters.linger != timeout || waiters.references > 0 || closed) {
                return;
            }
            waiters.linger = null;
            channels.remove(waiters.channel);
            unsubscribe(waiters.channel);
        }
    }

    /** Guarded by {@code this}: sent under the lock, so it stays ordered with the SUBSCRIBEs of joins. */
    private void unsubscribe(String channel) {
        commands.unsubscribe(channel).whenComplete((ok, failure) -> {
            if (failure != null) {
                // A rejected UNSUBSCRIBE leaves the channel in the connection's list of channels to
                // subscribe again on reconnect; resubscribed() drops it then.
                log.debug("unsubscribe from {} failed; the connection is likely gone", channel, failure);
            }
        });
    }

    /**
     * Reads a channel's notices while the channel is subscribed here (it is while anyone waits
     * on it), and hears of every lost connection of the client; subscribes nothing itself.
     *
     * @param channel the unlock channel
     * @param observer told each notice, on the connection's thread; must not block
     * @param connectionLost told when a connection of the client is lost; must not block
     * @return stops the observer; idempotent
     */
    public Runnable observe(String channel, Consumer<String> observer, Runnable connectionLost) {
        synchronized (this) {
            observers.computeIfAbsent(channel, ignored -> new ArrayList<>(1)).add(observer);
            lossObservers.add(connectionLost);
        }
        return () -> {
            synchronized (this) {
                List<Consumer<String>> left = observers.get(channel);
                if (left != null && left.remove(observer) && left.isEmpty()) {
                    observers.remove(channel);
                }
                lossObservers.remove(connectionLost);
            }
        };
    }

    /**
     * A connection of the client (commands or pub/sub) was lost: whatever Redis held for it may be
     * gone (a restart, a failover), and notices may have been missed. Tells every observer.
     */
    public void connectionLost() {
        List<Runnable> told;
        synchronized (this) {
            told = List.copyOf(lossObservers);
        }
        told.forEach(Runnable::run);
    }

    @Override
    public void message(String channel, String message) {
        if (message != null && message.startsWith(NOTICE)) {
            List<Consumer<String>> told;
            synchronized (this) {
                List<Consumer<String>> current = observers.get(channel);
                told = current == null ? List.of() : List.copyOf(current);
            }
            told.forEach(observer -> observer.accept(message));
            // A notice tells of no unlock: counted as a signal, it would send waiters whose try
            // crossed it to Redis again for nothing, and a cohort's failed try, which sends one,
            // would send the next.
            return;
        }
        ChannelWaiters waiters = find(channel);
        if (waiters != null) {
            waiters.signal(message);
        }
    }

    @Override
    public void smessage(String channel, String message) {
        message(channel, message);
    }

    @Override
    public void subscribed(String channel, long count) {
        resubscribed(channel);
    }

    @Override
    public void ssubscribed(String channel, long count) {
        resubscribed(channel);
    }

    private void resubscribed(String channel) {
        ChannelWaiters waiters;
        synchronized (this) {
            waiters = channels.get(channel);
            if (waiters == null && !closed) {
                // Lettuce subscribes again, on reconnect, every channel it counts as subscribed,
                // also one whose UNSUBSCRIBE it rejected while disconnected: nobody here waits on
                // it any more, and it would stay for the connection's life. (A confirmation that
                // merely arrives after its waiter left costs one UNSUBSCRIBE too many.)
                unsubscribe(channel);
            }
        }
        if (waiters != null) {
            waiters.signalAll();
        }
    }

    private synchronized @Nullable ChannelWaiters find(String channel) {
        return channels.get(channel);
    }

    /**
     * Fails every pending wait with a {@link LockException}, and every wait parked later on a
     * channel joined before (an attempt whose try was in flight), since neither a message nor
     * the timer will end them; later joins fail at once. Idempotent.
     */
    @Override
    public void close() {
        Map<String, ChannelWaiters> left;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            left = new HashMap<>(channels);
            channels.clear();
        }
        left.values().forEach(waiters -> waiters.failAll(LockExceptions.closedWhileWaiting()));
    }

    /** Subscribe and unsubscribe on the shared connection: classic or sharded pub/sub. */
    public interface SubscriptionCommands {

        /**
         * @param channel the channel
         * @return completes when Redis confirmed
         */
        CompletableFuture<Void> subscribe(String channel);

        /**
         * @param channel the channel
         * @return completes when Redis confirmed
         */
        CompletableFuture<Void> unsubscribe(String channel);

        /**
         * @param subscribe the connection's subscribe call
         * @param unsubscribe the connection's unsubscribe call
         * @return the pair as one
         */
        static SubscriptionCommands of(Function<String, CompletableFuture<Void>> subscribe,
                                       Function<String, CompletableFuture<Void>> unsubscribe) {
            return new SubscriptionCommands() {
                @Override
                public CompletableFuture<Void> subscribe(String channel) {
                    return subscribe.apply(channel);
                }

                @Override
                public CompletableFuture<Void> unsubscribe(String channel) {
                    return unsubscribe.apply(channel);
                }
            };
        }
    }
}
