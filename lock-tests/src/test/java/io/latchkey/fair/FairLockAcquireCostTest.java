package io.latchkey.fair;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one call of each fair-lock script costs inside Redis with 1, 100 and 1,000 waiters in
 * line, as SLOWLOG times it (the script's execution alone, no network, no client): it must not
 * grow with the queue. The rounds of the three lengths alternate, so that whatever else runs on
 * the machine weighs on all three alike, and medians are compared.
 */
class FairLockAcquireCostTest {

    private static final Logger log = LoggerFactory.getLogger(FairLockAcquireCostTest.class);
    private static final int[] QUEUE_LENGTHS = {1, 100, 1_000};
    private static final int ROUNDS = 5;
    private static final int CALLS_PER_ROUND = 200;
    private static final String LEASE = "600000";
    /** An hour: no fake waiter is evicted while the test runs. */
    private static final String PLACE = "3600000";

    private static RedisServer server;
    private static FairLockRedis raw;
    private static RedisCommands<String, String> redis;
    private static final Map<String, String> SHA = new LinkedHashMap<>();

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start("--slowlog-log-slower-than", "0", "--slowlog-max-len", "1000");
        raw = new FairLockRedis(server.uri());
        redis = raw.commands();
        for (String script : List.of("acquire.lua", "release.lua", "abandon.lua")) {
            SHA.put(script, redis.scriptLoad(FairLockRedis.script(script)));
        }
    }

    @AfterAll
    static void stopRedis() {
        raw.close();
        server.close();
    }

    /** One lock, held, with a line of fake waiters of a fixed length. */
    private static final class Line {

        final int length;
        final String lock;
        final String[] keys;
        final String[] releaseKeys;
        final String[] abandonKeys;
        String holder = "holder:0";
        int newcomers;

        Line(int length) {
            this.length = length;
            this.lock = "cost:" + length;
            String channel = FairLockRedis.channelOf(lock);
            this.keys = new String[] {lock, FairLockRedis.queueKey(lock), FairLockRedis.timeoutsKey(lock), channel};
            this.releaseKeys = new String[] {lock, FairLockRedis.queueKey(lock), channel};
            this.abandonKeys = new String[] {FairLockRedis.queueKey(lock), FairLockRedis.timeoutsKey(lock), channel};
            redis.hset(lock, holder, "1");
            redis.pexpire(lock, Long.parseLong(LEASE));
            for (int i = 0; i < length; i++) {
                acquire("waiter:" + i);
            }
            assertThat(redis.llen(keys[1])).isEqualTo(length);
        }

        Long acquire(String caller) {
            return redis.evalsha(SHA.get("acquire.lua"), ScriptOutputType.INTEGER, keys, LEASE, caller, PLACE, "publish");
        }

        Long release(String owner) {
            return redis.evalsha(SHA.get("release.lua"), ScriptOutputType.INTEGER, releaseKeys, owner, "publish");
        }

        Long abandon(String waiter) {
            return redis.evalsha(SHA.get("abandon.lua"), ScriptOutputType.INTEGER, abandonKeys, waiter, "publish");
        }

        String first() {
            return redis.lindex(keys[1], 0);
        }

        String last() {
            return redis.lindex(keys[1], -1);
        }

        /** The first in line takes the lock the holder released; a newcomer joins the back. */
        void handOff() {
            String first = first();
            if (release(holder) != 0 || acquire(first) != null) {
                throw new AssertionError("the hand-off to the first in line failed");
            }
            holder = first;
            acquire("newcomer:" + newcomers++);
        }
    }

    /**
     * One measured script call with what must come before and after it (not measured).
     *
     * @param script the script whose one call in {@code measured} is timed
     * @param flat whether the cost must not grow with the line; false only for the one O(n) step
     */
    private record Scenario(String name, String script, Consumer<Line> before, Consumer<Line> measured, Consumer<Line> after,
                            boolean flat) {

        Scenario(String name, String script, Consumer<Line> before, Consumer<Line> measured, Consumer<Line> after) {
            this(name, script, before, measured, after, true);
        }
    }

    private static final Consumer<Line> NOTHING = line -> { };

    private static final List<Scenario> SCENARIOS = List.of(
            new Scenario("acquire: retry by the last in line", "acquire.lua",
                    NOTHING, line -> line.acquire(line.last()), NOTHING),
            new Scenario("acquire: retry by the first in line", "acquire.lua",
                    NOTHING, line -> line.acquire(line.first()), NOTHING),
            new Scenario("acquire: a newcomer joins the back", "acquire.lua",
                    NOTHING, line -> line.acquire("arrival"), line -> line.abandon("arrival")),
            new Scenario("acquire: the first in line takes the lock", "acquire.lua",
                    line -> line.release(line.holder), line -> {
                        String first = line.first();
                        line.acquire(first);
                        line.holder = first;
                    }, line -> line.acquire("newcomer:" + line.newcomers++)),
            new Scenario("release: the last hold, waking the first", "release.lua",
                    NOTHING, line -> line.release(line.holder), line -> {
                        String first = line.first();
                        line.acquire(first);
                        line.holder = first;
                        line.acquire("newcomer:" + line.newcomers++);
                    }),
            new Scenario("abandon: the last in line gives up", "abandon.lua",
                    line -> line.acquire("leaver"), line -> line.abandon("leaver"), NOTHING),
            // LREM walks from the back of the line: the first in line giving up is the worst case.
            new Scenario("abandon: the first in line gives up (O(n))", "abandon.lua",
                    NOTHING, line -> line.abandon(line.first()), line -> line.acquire("rejoined:" + line.newcomers++), false));

    @Test
    void everyScriptCostsTheSameWithOneOrAThousandWaitersInLine() {
        redis.flushall();
        List<Line> lines = new ArrayList<>();
        for (int length : QUEUE_LENGTHS) {
            lines.add(new Line(length));
        }
        // Scenario -> queue length -> Redis-side microseconds of each measured call.
        Map<String, Map<Integer, List<Long>>> samples = new LinkedHashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (Line line : lines) {
                for (Scenario scenario : SCENARIOS) {
                    List<Long> micros = samples.computeIfAbsent(scenario.name(), s -> new LinkedHashMap<>())
                            .computeIfAbsent(line.length, l -> new ArrayList<>());
                    for (int i = 0; i < CALLS_PER_ROUND; i++) {
                        scenario.before().accept(line);
                        redis.slowlogReset();
                        scenario.measured().accept(line);
                        micros.add(loggedMicros(SHA.get(scenario.script())));
                        scenario.after().accept(line);
                    }
                }
                assertThat(redis.llen(line.keys[1])).as("the line keeps its length").isEqualTo(line.length);
            }
        }

        StringBuilder table = new StringBuilder(String.format("%n%-44s %14s %14s %14s%n",
                "script call (median / mean µs inside Redis)", "1 waiter", "100 waiters", "1,000 waiters"));
        samples.forEach((scenario, byLength) -> {
            table.append(String.format("%-44s", scenario));
            byLength.forEach((length, micros) -> table.append(String.format(" %6d / %5.1f", median(micros), mean(micros))));
            table.append('\n');
        });
        log.info("Fair lock script cost by queue length ({} calls each):{}", ROUNDS * CALLS_PER_ROUND, table);

        for (Scenario scenario : SCENARIOS) {
            Map<Integer, List<Long>> byLength = samples.get(scenario.name());
            long one = median(byLength.get(1));
            long thousand = median(byLength.get(1_000));
            if (scenario.flat()) {
                // A step per waiter would add several hundred microseconds at 1,000 waiters.
                assertThat(thousand).as("%s: median with 1,000 waiters against 1%s", scenario.name(), table)
                        .isLessThanOrEqualTo(2 * one + 10);
            }
        }
    }

    /** @return the execution time SLOWLOG logged for the one call of the script since the reset */
    private static long loggedMicros(String sha) {
        List<Long> micros = new ArrayList<>();
        for (Object entry : redis.slowlogGet(10)) {
            List<?> fields = (List<?>) entry;
            List<?> args = (List<?>) fields.get(3);
            if ("evalsha".equalsIgnoreCase(String.valueOf(args.get(0))) && sha.equals(String.valueOf(args.get(1)))) {
                micros.add((Long) fields.get(2));
            }
        }
        assertThat(micros).as("one logged call of %s", sha).hasSize(1);
        return micros.get(0);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static double mean(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).average().orElse(0);
    }
}
