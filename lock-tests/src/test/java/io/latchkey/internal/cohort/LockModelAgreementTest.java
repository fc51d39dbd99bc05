package io.latchkey.internal.cohort;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.scripts.ScriptsOnRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Keeps the cohort simulation's {@link LockModel} honest: the same short random scenarios of
 * script calls (acquire.lua with and without the mark, release.lua's modes, unmark.lua,
 * force-release.lua, renew.lua) run against a real Redis and against the model, and after every
 * call both must answer the same, hold the same lock hash, mark, turn and counter, and have
 * published the same messages. Leases are long, so that nothing runs out within a scenario; the
 * remaining leases that the answers carry are compared within a bound.
 *
 * <p>Tokens: a new hold's token is max(counter + 1, Redis TIME in µs). In every third scenario the
 * counter starts an hour ahead of Redis's clock, in Redis and in the model, and the model reads
 * Redis's TIME as taken just before each call: the two must agree exactly without help. In the
 * others the counter starts absent, so the clock decides most tokens; a script's TIME cannot be
 * read from outside, so the test checks that Redis's new token is max(counter + 1, a TIME between
 * just before and just after the call), and gives the model that token as its clock reading,
 * from which it must compute the same token, counter and hash.
 */
class LockModelAgreementTest {

    private static final String LOCK = "model-lock";
    private static final LockKeys KEYS = LockKeys.of(LOCK);
    private static final String[] FIELDS = {"c0:1", "c0:2", "c1:1", "c1:-9223372036854775808", "c2:-9223372036854775807"};
    private static final long LEASE = 60_000;
    private static final long TURN = 30_000;
    /** How much real time the calls of a scenario may take, at most, for the waits to agree. */
    private static final long ELAPSED = 10_000;
    private static final int SCENARIOS = 300;
    private static final int CALLS = 25;

    private static ScriptsOnRedis scripts;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void startRedis() {
        scripts = ScriptsOnRedis.start();
        redis = scripts.redis();
        scripts.record((channel, message) -> message, KEYS.channel());
    }

    @AfterAll
    static void stopRedis() {
        scripts.close();
    }

    @BeforeEach
    void emptyRedis() {
        redis.flushall();
    }

    @Test
    void theModelAnswersAsTheScriptsDoInEveryScenario() throws Exception {
        for (long seed = 1; seed <= SCENARIOS; seed++) {
            redis.flushall();
            scripts.awaitPublished(scripts.published().size());
            scripts.published().clear();
            scenario(seed);
        }
    }

    private void scenario(long seed) throws InterruptedException {
        Random random = new Random(seed);
        ManualTicker clock = new ManualTicker();
        long[] serverTime = new long[1];
        LockModel model = new LockModel(clock, () -> serverTime[0]);
        boolean counterAhead = seed % 3 == 0;
        if (counterAhead) {
            long ahead = scripts.serverMicros() + TimeUnit.HOURS.toMicros(1);
            redis.set(KEYS.fenceCounter(), Long.toString(ahead));
            model.setCounter(ahead);
        }
        List<String> modelPublished = new ArrayList<>();
        model.subscribe(modelPublished::add);
        List<String> calls = new ArrayList<>();
        for (int call = 0; call < CALLS; call++) {
            String field = FIELDS[random.nextInt(FIELDS.length)];
            String client = field.substring(0, field.indexOf(':'));
            Object real;
            Object modelled;
            String description;
            switch (random.nextInt(9)) {
                case 0, 1, 2 -> {
                    boolean marking = random.nextBoolean();
                    int block = marking && random.nextBoolean() ? 1024 : 1;
                    String held = heldArgument(random, field, model);
                    description = "acquire " + field + " held '" + held + "' marking " + marking + " block " + block;
                    String counter = redis.get(KEYS.fenceCounter());
                    long counterBefore = counter == null ? 0 : Long.parseLong(counter);
                    long before = scripts.serverMicros();
                    List<Object> reply = acquire(field, held, marking, block);
                    real = reply;
                    long after = scripts.serverMicros();
                    serverTime[0] = counterAhead ? before
                            : clockReading(reply, counterBefore, before, after, "seed " + seed + ", " + description);
                    LockModel.Acquired answer = model.acquire(field, LEASE, held, marking, block);
                    modelled = answer.status() == 1
                            ? marking ? List.of(1L, answer.countOrWait(), answer.token(), answer.othersWait() ? 1L : 0L)
                                      : List.of(1L, answer.countOrWait(), answer.token())
                            : List.of(answer.status(), answer.countOrWait());
                }
                case 3, 4 -> {
                    boolean marking = random.nextBoolean();
                    String mode = marking && random.nextBoolean() ? "requeue" : "release";
                    description = mode + " " + field + " marking " + marking;
                    real = release(field, mode, "", marking);
                    modelled = model.release(field, mode, 0, marking, TURN, LEASE);
                }
                case 5 -> {
                    String token = model.token(field);
                    long end = token == null ? 1 + random.nextInt(3000) : Long.parseLong(token);
                    description = "end " + field + " token " + end;
                    real = release(field, "end", Long.toString(end), true);
                    modelled = model.release(field, "end", end, true, TURN, LEASE);
                }
                case 6 -> {
                    description = "unmark " + client;
                    real = redis.eval(ScriptsOnRedis.script("lock/unmark.lua"), ScriptOutputType.INTEGER,
                            new String[] {KEYS.waitingMark(), KEYS.turn()}, client);
                    modelled = model.unmark(client);
                }
                case 7 -> {
                    description = "renew " + field;
                    List<Object> renewed = redis.eval(ScriptsOnRedis.script("watchdog/renew.lua"), ScriptOutputType.MULTI,
                            new String[] {LOCK}, Long.toString(LEASE), field);
                    real = renewed.get(0);
                    modelled = model.renew(field, LEASE) ? 1L : 0L;
                }
                default -> {
                    description = "force-release";
                    real = redis.eval(ScriptsOnRedis.script("lock/force-release.lua"), ScriptOutputType.INTEGER,
                            new String[] {LOCK, KEYS.channel()}, "publish");
                    modelled = model.forceRelease() ? 1L : 0L;
                }
            }
            calls.add(description + " -> " + real);
            String context = "seed " + seed + ", calls:\n  " + String.join("\n  ", calls);
            assertThat(normalised(modelled, real)).as(context).isEqualTo(real);
            assertThat(modelState(model)).as(context).isEqualTo(redisState());
            scripts.awaitPublished(modelPublished.size());
            assertThat(scripts.published()).as(context).isEqualTo(modelPublished);
        }
        scripts.published().clear();
    }

    /**
     * Checks a new token in Redis's answer against the rule, max(counter + 1, TIME), with TIME
     * between {@code before} and {@code after}.
     *
     * @return the TIME reading that gives Redis's token by the rule: the token itself (the rule
     *     gives the same for a token of counter + 1); {@code before} when no new token was taken
     */
    private static long clockReading(List<Object> reply, long counterBefore, long before, long after, String what) {
        if (!Long.valueOf(1L).equals(reply.get(0)) || (Long) reply.get(2) <= counterBefore) {
            return before;
        }
        long token = (Long) reply.get(2);
        assertThat(token).as("%s: a new token, at least Redis's TIME before the call", what).isGreaterThanOrEqualTo(before);
        if (token != counterBefore + 1) {
            assertThat(token).as("%s: a token from the clock, at most Redis's TIME after the call", what).isLessThanOrEqualTo(after);
        }
        return token;
    }

    /** '' mostly; now and then 'fresh', the owner's token, or a token it does not have. */
    private static String heldArgument(Random random, String field, LockModel model) {
        int kind = random.nextInt(6);
        if (kind == 0) {
            return "fresh";
        }
        if (kind == 1) {
            String token = model.token(field);
            return token == null ? "7" : token;
        }
        if (kind == 2) {
            return Long.toString(1 + random.nextInt(5000));
        }
        return "";
    }

    private static List<Object> acquire(String field, String held, boolean marking, int block) {
        String[] keys = marking ? new String[] {LOCK, KEYS.fenceCounter(), KEYS.waitingMark(), KEYS.turn(), KEYS.channel()}
                : new String[] {LOCK, KEYS.fenceCounter()};
        List<String> args = new ArrayList<>(List.of(Long.toString(LEASE), field, "call-" + System.nanoTime(), held));
        if (marking) {
            args.add(Integer.toString(block));
            args.add("publish");
        }
        return redis.eval(ScriptsOnRedis.script("lock/acquire.lua"), ScriptOutputType.MULTI, keys, args.toArray(String[]::new));
    }

    private static Long release(String field, String mode, String token, boolean marking) {
        String[] keys = marking ? new String[] {LOCK, KEYS.channel(), KEYS.waitingMark(), KEYS.turn()}
                : new String[] {LOCK, KEYS.channel()};
        List<String> args = new ArrayList<>(List.of(field, "publish", "call-" + System.nanoTime(), mode, token));
        if (marking) {
            args.add(Long.toString(TURN));
            args.add(Long.toString(LEASE));
        }
        return redis.eval(ScriptsOnRedis.script("lock/release.lua"), ScriptOutputType.INTEGER, keys, args.toArray(String[]::new));
    }

    /**
     * The wait in a "busy" answer is a remaining lease, which the model does not count down: the
     * model's wait stands for Redis's when Redis's is at most that and less than {@link #ELAPSED}
     * shorter, as real time passes between the calls (a rounding to seconds broke on a busy
     * machine where more than half a second passed). The waits the model gives, the lease and
     * the turn, are 30 s apart.
     *
     * @return Redis's answer when the model's agrees with it so, else the model's
     */
    private static Object normalised(Object modelled, Object real) {
        if (busyWait(modelled) >= 0 && busyWait(real) >= 0) {
            long model = busyWait(modelled);
            long redis = busyWait(real);
            return redis <= model && model - redis < ELAPSED ? real : modelled;
        }
        return modelled;
    }

    /** @return the wait of a "busy" answer with a remaining lease, else -1 */
    private static long busyWait(Object answer) {
        if (answer instanceof List<?> list && list.size() == 2 && Long.valueOf(0L).equals(list.get(0))
                && list.get(1) instanceof Long wait && wait >= 0) {
            return wait;
        }
        return -1;
    }

    private static Map<String, String> redisState() {
        Map<String, String> state = new TreeMap<>(redis.hgetall(LOCK));
        state.keySet().removeIf(key -> key.endsWith(":call"));
        put(state, "@mark", redis.get(KEYS.waitingMark()));
        put(state, "@turn", redis.get(KEYS.turn()));
        put(state, "@counter", redis.get(KEYS.fenceCounter()));
        return state;
    }

    private static Map<String, String> modelState(LockModel model) {
        Map<String, String> state = new TreeMap<>(model.hash());
        put(state, "@mark", model.mark());
        put(state, "@turn", model.turn());
        put(state, "@counter", model.counter() == 0 ? null : Long.toString(model.counter()));
        return state;
    }

    private static void put(Map<String, String> state, String key, String value) {
        if (value != null) {
            state.put(key, value);
        }
    }
}
