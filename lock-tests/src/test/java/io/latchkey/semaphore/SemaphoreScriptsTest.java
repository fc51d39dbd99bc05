package io.latchkey.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.OneRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The semaphore's scripts called directly against Redis, as packaged: what each answers and
 * leaves behind, and that none of them runs more commands with 1,000 permits out than with one
 * (commands counted by {@code INFO commandstats}, as {@code FairLockAcquireCostTest} does).
 */
class SemaphoreScriptsTest {

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private static final String HOUR = "3600000";
    private static final Set<String> NOT_COUNTED = Set.of("evalsha", "info");
    private static final Map<String, String> SHA = new LinkedHashMap<>();
    private static RedisCommands<String, String> redis;

    private final String permits = "latchkey:{sem}:permits";
    private final String limit = "latchkey:{sem}:permit-limit";

    @BeforeAll
    static void loadScripts() {
        redis = REDIS.commands();
        for (String script : List.of("acquire.lua", "release.lua", "renew.lua", "available.lua")) {
            SHA.put(script, redis.scriptLoad(script(script)));
        }
    }

    @BeforeEach
    void empty() {
        redis.flushall();
    }

    private static String script(String fileName) {
        try (InputStream in = SemaphoreScriptsTest.class.getResourceAsStream("/io/latchkey/internal/semaphore/" + fileName)) {
            if (in == null) {
                throw new AssertionError("no script resource " + fileName);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Object> acquire(String keySet, String id, String lease, int max) {
        return redis.evalsha(SHA.get("acquire.lua"), ScriptOutputType.MULTI,
                new String[] {keySet + ":permits", keySet + ":permit-limit"}, lease, id, Integer.toString(max));
    }

    private List<Object> acquire(String id, String lease, int max) {
        return acquire("latchkey:{sem}", id, lease, max);
    }

    private Long release(String keySet, String id) {
        return redis.evalsha(SHA.get("release.lua"), ScriptOutputType.INTEGER,
                new String[] {keySet + ":permits", keySet + ":permit-limit", keySet + ":permit-channel"}, id, "publish");
    }

    private Long release(String id) {
        return release("latchkey:{sem}", id);
    }

    private Long available(int max) {
        return redis.evalsha(SHA.get("available.lua"), ScriptOutputType.INTEGER, new String[] {permits, limit},
                Integer.toString(max));
    }

    private List<Object> renew(String lease, List<String> keys, String... ids) {
        String[] args = new String[ids.length + 1];
        args[0] = lease;
        System.arraycopy(ids, 0, args, 1, ids.length);
        return redis.evalsha(SHA.get("renew.lua"), ScriptOutputType.MULTI, keys.toArray(String[]::new), args);
    }

    private long publishes() {
        return commandStats().getOrDefault("publish", 0L);
    }

    @Test
    void grantsUpToTheLimitThenAnswersTheTimeUntilTheEarliestLeaseEnds() {
        assertThat(acquire("a", "20000", 2)).containsExactly(1L, 0L);
        assertThat(acquire("b", "5000", 2)).containsExactly(1L, 0L);
        List<Object> full = acquire("c", "20000", 2);
        assertThat(full.get(0)).isEqualTo(0L);
        assertThat((Long) full.get(1)).isBetween(3000L, 5000L);
        assertThat(redis.zscore(permits, "c")).isNull();
        assertThat(available(2)).isZero();
        assertThat(redis.get(limit)).isEqualTo("2");
    }

    @Test
    void anotherLimitIsRefusedWhilePermitsAreOutAndTakesOverWhenNoneIs() {
        acquire("a", "20000", 2);
        assertThat(acquire("b", "20000", 3)).containsExactly(-1L, 2L);
        assertThat(redis.zcard(permits)).isEqualTo(1L);
        assertThat(release("a")).isEqualTo(1L);
        assertThat(acquire("b", "20000", 3)).containsExactly(1L, 0L);
        assertThat(redis.get(limit)).isEqualTo("3");
    }

    @Test
    void aPermitWhoseLeaseRanOutIsNotCountedAndTheNextAcquireRemovesIt() {
        acquire("short", "100", 2);
        acquire("long", HOUR, 2);
        assertThat(available(2)).isZero();
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20)).until(() -> available(2) == 1L);
        assertThat(redis.zcard(permits)).as("not yet removed, only not counted").isEqualTo(2L);
        assertThat(acquire("next", HOUR, 2)).containsExactly(1L, 0L);
        assertThat(redis.zrange(permits, 0, -1)).containsExactlyInAnyOrder("long", "next");
    }

    @Test
    void theKeysExpireWhenTheLastLeaseEndsAndTheLastReturnDeletesThem() {
        acquire("a", "10000", 3);
        acquire("b", "20000", 3);
        assertThat(redis.pttl(permits)).isBetween(19_000L, 20_000L);
        assertThat(redis.pttl(limit)).isBetween(19_000L, 20_000L);
        assertThat(release("b")).isEqualTo(1L);
        assertThat(redis.pttl(permits)).as("follows the remaining longest lease").isBetween(9_000L, 10_000L);
        assertThat(redis.pttl(limit)).isBetween(9_000L, 10_000L);
        assertThat(release("a")).isEqualTo(1L);
        assertThat(redis.exists(permits, limit)).isZero();
    }

    @Test
    void releasePublishesOneMessageForAValidPermitOnlyAndAnswersWhatItFound() {
        acquire("a", HOUR, 3);
        acquire("short", "50", 3);
        long before = publishes();
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20)).until(() -> available(3) == 2L);
        assertThat(release("short")).as("there, but its lease ran out").isZero();
        assertThat(publishes()).as("its place was free already: no message").isEqualTo(before);
        assertThat(release("a")).isEqualTo(1L);
        assertThat(publishes()).isEqualTo(before + 1);
        assertThat(release("a")).as("a second return finds nothing").isNull();
        assertThat(release("never")).isNull();
        assertThat(redis.exists(permits, limit)).isZero();
    }

    @Test
    void acquiringAnIdThatIsAlreadyOutExtendsItsLeaseAndNeverShortensIt() {
        acquire("a", HOUR, 1);
        Double end = redis.zscore(permits, "a");
        assertThat(acquire("a", "1000", 1)).as("its own permit is not 'full'").containsExactly(1L, 0L);
        assertThat(redis.zscore(permits, "a")).isEqualTo(end);
        assertThat(redis.zcard(permits)).isEqualTo(1L);
    }

    @Test
    void renewMovesValidLeasesOnAndAnswersZeroForGoneExpiredOrWrongTypeWithoutFailingTheBatch() {
        acquire("a", "1000", 3);
        acquire("short", "30", 3);
        redis.set("latchkey:{other}:permits", "not a sorted set");
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10)).until(() -> available(3) == 2L);
        List<Object> renewed = renew("20000",
                List.of(permits, limit, permits, limit, permits, limit, "latchkey:{other}:permits", "latchkey:{other}:permit-limit"),
                "a", "short", "gone", "x");
        assertThat(renewed).containsExactly(1L, 0L, 0L, 0L);
        assertThat(redis.pttl(permits)).isBetween(19_000L, 20_000L);
        assertThat(redis.pttl(limit)).isBetween(19_000L, 20_000L);
        assertThat(renew("1000", List.of(permits, limit), "a")).as("never shortened").containsExactly(1L);
        assertThat(redis.pttl(permits)).isGreaterThan(18_000L);
    }

    // ---- cost ----------------------------------------------------------------------------------

    /** One semaphore with {@code out} permits of an hour out, under a limit that leaves room or none. */
    private final class Filled {
        final String keys;
        final int max;
        int calls;

        Filled(String tag, int out, boolean room) {
            this.keys = "latchkey:{" + tag + "}";
            this.max = room ? out + 10 : out;
            for (int i = 0; i < out; i++) {
                assertThat(acquire(keys, "held:" + i, HOUR, max).get(0)).isEqualTo(1L);
            }
        }

        String fresh() {
            return "fresh:" + ++calls;
        }
    }

    private record Scenario(String name, Consumer<Filled> before, Consumer<Filled> measured, Consumer<Filled> after) {
    }

    private static final Consumer<Filled> NOTHING = filled -> { };

    @Test
    void everyScriptRunsTheSameCommandsWithOneOrAThousandPermitsOut() {
        List<Scenario> withRoom = List.of(
                new Scenario("acquire: granted", NOTHING, filled -> acquire(filled.keys, "cost", HOUR, filled.max),
                        filled -> release(filled.keys, "cost")),
                new Scenario("release: a valid permit, waking a waiter", filled -> acquire(filled.keys, "cost", HOUR, filled.max),
                        filled -> release(filled.keys, "cost"), NOTHING),
                new Scenario("renew: one permit", NOTHING, filled -> renew("60000",
                        List.of(filled.keys + ":permits", filled.keys + ":permit-limit"), "held:0"), NOTHING),
                new Scenario("available", NOTHING, filled -> redis.evalsha(SHA.get("available.lua"), ScriptOutputType.INTEGER,
                        new String[] {filled.keys + ":permits", filled.keys + ":permit-limit"}, Integer.toString(filled.max)),
                        NOTHING));
        List<Scenario> full = List.of(
                new Scenario("acquire: every permit out", NOTHING, filled -> acquire(filled.keys, filled.fresh(), HOUR, filled.max),
                        NOTHING));
        assertSameCommandsFor(withRoom, true);
        assertSameCommandsFor(full, false);
    }

    private void assertSameCommandsFor(List<Scenario> scenarios, boolean room) {
        List<Filled> sizes = new ArrayList<>();
        for (int out : new int[] {1, 1_000}) {
            sizes.add(new Filled("cost-" + out + "-" + room, out, room));
        }
        for (Scenario scenario : scenarios) {
            Map<Integer, Set<Long>> counts = new LinkedHashMap<>();
            for (Filled filled : sizes) {
                Set<Long> seen = counts.computeIfAbsent(filled.max, any -> new TreeSet<>());
                for (int i = 0; i < 10; i++) {
                    scenario.before().accept(filled);
                    long before = commandsRun();
                    scenario.measured().accept(filled);
                    seen.add(commandsRun() - before);
                    scenario.after().accept(filled);
                }
            }
            List<Set<Long>> bySize = new ArrayList<>(counts.values());
            assertThat(bySize.get(0)).as("%s: commands per call by permits out %s", scenario.name(), counts)
                    .hasSize(1).isEqualTo(bySize.get(1));
        }
    }

    private static long commandsRun() {
        return commandStats().entrySet().stream().filter(entry -> !NOT_COUNTED.contains(entry.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }

    private static Map<String, Long> commandStats() {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                String stats = line.substring(line.indexOf(':') + 1);
                calls.put(command, Long.parseLong(stats.substring("calls=".length(), stats.indexOf(','))));
            }
        }
        return calls;
    }
}
