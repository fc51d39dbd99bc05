package io.latchkey.internal.redis;

import io.latchkey.LockConfig;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.UnsettledCalls;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Redis replaced by scripted answers, for a protocol's test below Redis: every EVALSHA gets the
 * next answer given to {@link #answer}, and what was sent is kept for the test to read. A client's
 * {@link LockContext} over it runs on a manual timer and clock. Not thread-safe: one test's thread.
 */
public final class ScriptedRedis {

    /** Redis's nil reply, as given to {@link #answer}. */
    public static final Object NIL = new Object();

    private final ManualTimer timer = ManualTimer.manual();
    private final List<List<String>> argv = new ArrayList<>();
    private final List<List<String>> keys = new ArrayList<>();
    private final Queue<Object> answers = new ArrayDeque<>();

    /** @param reply the reply to the next script call: a Long, a List, or {@link #NIL} */
    public void answer(Object reply) {
        answers.add(reply);
    }

    /** @return the timer, and through it the clock, of every {@link #context} made here */
    public ManualTimer timer() {
        return timer;
    }

    /** @return how many script calls were sent */
    public int calls() {
        return argv.size();
    }

    /** @param call the call's index, from 0 @return its ARGV */
    public List<String> argv(int call) {
        return argv.get(call);
    }

    /** @param call the call's index, from 0 @return its KEYS */
    public List<String> keys(int call) {
        return keys.get(call);
    }

    /**
     * @param clientId the client's id
     * @param config the client's configuration
     * @return the client's machinery, its Redis this one
     */
    public LockContext context(String clientId, LockConfig config) {
        RedisExecutor executor = new RedisExecutor(commands(), Duration.ofSeconds(1), "scripted Redis");
        UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(
                channel -> CompletableFuture.completedFuture(null), channel -> CompletableFuture.completedFuture(null)), timer);
        return new LockContext(clientId, config, executor, subscriptions,
                new LeaseRenewer(timer, timer.ticker(), config.watchdogTimeout()), timer, timer.ticker(), "publish",
                new UnsettledCalls(timer), new HoldRegistry(timer, timer.ticker()));
    }

    @SuppressWarnings("unchecked")
    private RedisClusterAsyncCommands<String, String> commands() {
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RedisClusterAsyncCommands.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("evalsha") || args.length != 4) {
                        throw new UnsupportedOperationException(method.toString());
                    }
                    keys.add(Arrays.asList((String[]) args[2]));
                    argv.add(Arrays.asList((String[]) args[3]));
                    Object answer = answers.remove();
                    return new Answer<>(answer == NIL ? null : answer);
                });
    }

    /** A reply that is already there. */
    private static final class Answer<T> extends CompletableFuture<T> implements RedisFuture<T> {

        Answer(T value) {
            complete(value);
        }

        @Override
        public String getError() {
            return "";
        }

        @Override
        public boolean await(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
