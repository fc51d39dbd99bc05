package io.latchkey.fair;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What one call of each fair-lock script does inside Redis with 10, 100 and 1,000 waiters in line
 * (enough that first, second and last in line are different waiters): the commands it runs,
 * counted by {@code INFO commandstats}, must be the same for every length, so that no script
 * walks the queue one command per waiter (as a score rewrite per grant would).
 * Commands are counted, not timed: speed is the benchmarks' job ({@code fair-queue-1/100/1000}).
 * One command that is itself O(n), the LREM of a waiter giving up, counts once like any other.
 */
class FairLockAcquireCostTest {

    private static final int[] QUEUE_LENGTHS = {10, 100, 1_000};
    private static final int CALLS = 20;
    /** Commands that are not the measured script's: the script call itself and the counting. */
    private static final Set<String> NOT_COUNTED = Set.of("evalsha", "info");
    private static final String LEASE = "600000";
    /** An hour: no fake waiter is evicted while the test runs. */
    private static final String PLACE = "3600000";

    private static RedisServer server;
    private static FairLockRedis raw;
    private static RedisCommands<String, String> redis;
    private static final Map<String, String> SHA = new LinkedHashMap<>();

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
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
        /** The first in line as the holder released: the waiter its release granted. */
        String granted;
        int newcomers;

        Line(int length) {
            this.length = length;
            this.lock = "cost:" + length;
            String channel = FairLockRedis.channelOf(lock);
            String secrets = FairLockRedis.secretsKey(lock);
            this.keys = new String[] {lock, FairLockRedis.queueKey(lock), FairLockRedis.timeoutsKey(lock), channel,
                LockKeys.of(lock).fenceCounter(), secrets};
            this.releaseKeys = new String[] {lock, FairLockRedis.queueKey(lock), channel, FairLockRedis.timeoutsKey(lock),
                LockKeys.of(lock).fenceCounter(), secrets};
            this.abandonKeys = new String[] {FairLockRedis.queueKey(lock), FairLockRedis.timeoutsKey(lock), channel, lock, secrets};
            redis.hset(lock, holder, "1");
            redis.pexpire(lock, Long.parseLong(LEASE));
            for (int i = 0; i < length; i++) {
                acquire("waiter:" + i);
            }
            assertThat(redis.llen(keys[1])).isEqualTo(length);
        }

        private int calls;

        Long acquire(String caller) {
            String call = "cost-" + ++calls;
            List<Object> reply = redis.evalsha(SHA.get("acquire.lua"), ScriptOutputType.MULTI, keys, LEASE, caller, PLACE,
                    "publish", call, "", "secret-" + call);
            return (Long) reply.get(0) == 1L ? null : (Long) reply.get(1);
        }

        Long release(String owner) {
            return redis.evalsha(SHA.get("release.lua"), ScriptOutputType.INTEGER, releaseKeys, owner, "publish",
                    "cost-" + ++calls, "release");
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

        /** The first in line takes the lock the holder's release granted it; a newcomer joins the back. */
        void handOff() {
            String first = first();
            if (release(holder) != 0 || acquire(first) != null) {
                throw new AssertionError("the hand-off to the first in line failed");
            }
            holder = first;
            acquire("newcomer:" + newcomers++);
        }
    }

    /** One measured script call with what must come before and after it (not counted). */
    private record Scenario(String name, Consumer<Line> before, Consumer<Line> measured, Consumer<Line> after) {
    }

    private static final Consumer<Line> NOTHING = line -> { };

    private static final List<Scenario> SCENARIOS = List.of(
            new Scenario("acquire: retry by the last in line",
                    NOTHING, line -> line.acquire(line.last()), NOTHING),
            new Scenario("acquire: retry by the first in line",
                    NOTHING, line -> line.acquire(line.first()), NOTHING),
            new Scenario("acquire: a newcomer joins the back",
                    NOTHING, line -> line.acquire("arrival"), line -> line.abandon("arrival")),
            // The release grants the lock to the first in line and takes it out of line: who that
            // was is noted before.
            new Scenario("acquire: the first in line takes the lock its release granted",
                    line -> {
                        line.granted = line.first();
                        line.release(line.holder);
                    }, line -> {
                        line.acquire(line.granted);
                        line.holder = line.granted;
                    }, line -> line.acquire("newcomer:" + line.newcomers++)),
            new Scenario("release: the last hold, granting the first",
                    line -> line.granted = line.first(), line -> line.release(line.holder), line -> {
                        line.acquire(line.granted);
                        line.holder = line.granted;
                        line.acquire("newcomer:" + line.newcomers++);
                    }),
            new Scenario("abandon: the last in line gives up",
                    line -> line.acquire("leaver"), line -> line.abandon("leaver"), NOTHING),
            // LREM walks from the back of the line: the first in line giving up is the worst case.
            new Scenario("abandon: the first in line gives up (O(n))",
                    NOTHING, line -> line.abandon(line.first()), line -> line.acquire("rejoined:" + line.newcomers++)));

    @Test
    void everyScriptRunsTheSameCommandsWithTenOrAThousandWaitersInLine() {
        redis.flushall();
        List<Line> lines = new ArrayList<>();
        for (int length : QUEUE_LENGTHS) {
            lines.add(new Line(length));
        }
        for (Scenario scenario : SCENARIOS) {
            // Queue length -> the distinct command counts of its measured calls.
            Map<Integer, Set<Long>> commands = new LinkedHashMap<>();
            for (Line line : lines) {
                Set<Long> counts = commands.computeIfAbsent(line.length, length -> new TreeSet<>());
                for (int i = 0; i < CALLS; i++) {
                    scenario.before().accept(line);
                    long before = commandsRun();
                    scenario.measured().accept(line);
                    counts.add(commandsRun() - before);
                    scenario.after().accept(line);
                }
                assertThat(redis.llen(line.keys[1])).as("the line keeps its length").isEqualTo(line.length);
            }
            assertThat(commands.get(10)).as("%s: commands per call by queue length %s", scenario.name(), commands)
                    .hasSize(1)
                    .isEqualTo(commands.get(100))
                    .isEqualTo(commands.get(1_000));
            System.out.println(scenario.name() + ": " + commands.get(10).iterator().next() + " commands per call");
        }
    }

    /**
     * A hand-off granted at the release, as the scripts see it: the holder's release is one script
     * call that grants the first in line and sends it one message; the waiter's take of the grant
     * (off the hand-off's path: the waiter entered on the message) is one more, which wakes the
     * next in line by one message, so that it watches the new lease.
     */
    @Test
    void aHandOffIsOneReleaseWithOneMessageThenOneTakeWithOneMessage() {
        redis.flushall();
        Line line = new Line(10);
        String first = line.first();
        redis.configResetstat();

        line.release(line.holder);
        assertThat(scriptCallsAndPublishes()).as("release: script calls, messages").containsExactly(1L, 1L);
        line.acquire(first);
        assertThat(scriptCallsAndPublishes()).as("and the take: script calls, messages").containsExactly(2L, 2L);
    }

    /** @return the script calls and the PUBLISH commands Redis ran since its statistics were reset */
    private static List<Long> scriptCallsAndPublishes() {
        long scripts = 0;
        long publishes = 0;
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_publish:")) {
                String stats = line.substring(line.indexOf(':') + 1);
                long calls = Long.parseLong(stats.substring("calls=".length(), stats.indexOf(',')));
                if (line.startsWith("cmdstat_evalsha:")) {
                    scripts = calls;
                } else {
                    publishes = calls;
                }
            }
        }
        return List.of(scripts, publishes);
    }

    /** @return how many commands Redis ran so far, the script's own included, less the uncounted */
    private static long commandsRun() {
        long calls = 0;
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                if (!NOT_COUNTED.contains(command)) {
                    String stats = line.substring(line.indexOf(':') + 1);
                    calls += Long.parseLong(stats.substring("calls=".length(), stats.indexOf(',')));
                }
            }
        }
        return calls;
    }
}
