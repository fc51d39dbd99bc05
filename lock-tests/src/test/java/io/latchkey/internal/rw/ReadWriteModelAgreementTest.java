package io.latchkey.internal.rw;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.internal.time.ManualTicker;
import io.latchkey.scripts.ScriptsOnRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the shared-reads simulation's {@link ReadWriteModel} honest: the same short random
 * scenarios of read-write script calls (acquire.lua on both sides, with '', 'fresh' or a token and
 * token blocks; release.lua's release, undo, end and force; reserve.lua; renew.lua; abandon.lua)
 * run against a real Redis and against the model, and after every call both must answer the
 * same, count the same levels for every field (inspect.lua) and have published the same messages
 * on the writers' and the readers' channel. Leases and places are long, so that nothing runs out
 * within a scenario; the waits the answers carry are compared within a bound. The counter starts
 * an hour ahead of Redis's clock in both, so that every token is the counter's next.
 */
class ReadWriteModelAgreementTest {

    private static final String LOCK = "model-rw";
    private static final ReadWriteKeys KEYS = ReadWriteKeys.of(LockKeys.of(LOCK));
    /** Two owners of two clients, and a client's shared read hold under one of its reserved ids. */
    private static final String[] OWNERS = {"c0:1", "c0:2", "c1:1", "c2:-9223372034707292160"};
    private static final long LEASE = 60_000;
    private static final long PLACE = 40_000;
    private static final int BLOCK = 9;
    /** How much real time the calls of a scenario may take, at most, for the waits to agree. */
    private static final long ELAPSED = 10_000;
    private static final int SCENARIOS = 100;
    private static final int CALLS = 30;

    private static ScriptsOnRedis scripts;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void startRedis() {
        scripts = ScriptsOnRedis.start();
        redis = scripts.redis();
        scripts.record((channel, message) -> (channel.equals(KEYS.readChannel()) ? ReadWriteModel.READERS : ReadWriteModel.WRITERS) + message,
                KEYS.channel(), KEYS.readChannel());
    }

    @AfterAll
    static void stopRedis() {
        scripts.close();
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
        ReadWriteModel model = new ReadWriteModel(new ManualTicker());
        long ahead = scripts.serverMicros() + TimeUnit.HOURS.toMicros(1);
        redis.set(KEYS.fenceCounter(), Long.toString(ahead));
        model.setCounter(ahead);
        List<String> modelPublished = new ArrayList<>();
        model.subscribe((channel, message) -> modelPublished.add(channel + message));
        Map<String, String> lastCall = new HashMap<>();
        List<String> calls = new ArrayList<>();
        for (int call = 0; call < CALLS; call++) {
            String owner = OWNERS[random.nextInt(OWNERS.length)];
            boolean reading = owner.startsWith("c2") || random.nextInt(3) != 0;
            String field = owner + (reading ? ":read" : ":write");
            String sibling = owner + (reading ? ":write" : ":read");
            String id = "call-" + seed + "-" + call;
            Object real;
            Object modelled;
            String description;
            switch (random.nextInt(10)) {
                case 0, 1, 2, 3 -> {
                    String held = heldArgument(random, field, model);
                    int block = held.equals("fresh") ? BLOCK : 1;
                    description = "acquire " + field + " held '" + held + "' block " + block;
                    real = redis.eval(ScriptsOnRedis.script("rw/acquire.lua"), ScriptOutputType.MULTI,
                            new String[] {KEYS.lock(), KEYS.leases(), KEYS.writers(), KEYS.fenceCounter()},
                            reading ? "read" : "write", Long.toString(LEASE), field, sibling, id, held, Long.toString(PLACE),
                            Integer.toString(block));
                    ReadWriteModel.Acquired answer = model.acquire(reading, field, sibling, millis(LEASE), id, held,
                            millis(PLACE), block);
                    modelled = answer.status() == 1 ? List.of(1L, answer.countOrWait(), answer.token())
                            : List.of(answer.status(), answer.countOrWait());
                    lastCall.put(field, id);
                }
                case 4 -> {
                    String undone = random.nextBoolean() ? lastCall.getOrDefault(field, "none") : id;
                    String mode = undone.equals(id) ? "release" : "undo";
                    description = mode + " " + field + " call " + undone;
                    real = release(field, undone, mode, "");
                    modelled = model.release(field, undone, mode, 0);
                }
                case 5 -> {
                    long token = model.token(field) != 0 && random.nextBoolean() ? model.token(field) : 1 + random.nextInt(9);
                    description = "end " + field + " token " + token;
                    real = release(field, id, "end", Long.toString(token));
                    modelled = model.release(field, id, "end", token);
                }
                case 6 -> {
                    long token = model.token(field) != 0 && random.nextInt(4) != 0 ? model.token(field) : 1 + random.nextInt(9);
                    description = "reserve " + field + " token " + token;
                    List<Object> reserved = redis.eval(ScriptsOnRedis.script("rw/reserve.lua"), ScriptOutputType.MULTI,
                            new String[] {KEYS.lock(), KEYS.leases(), KEYS.writers(), KEYS.fenceCounter()},
                            field, Long.toString(token), Integer.toString(BLOCK));
                    real = reserved;
                    ShareRedis.Reserved answer = model.reserve(field, token, BLOCK);
                    modelled = List.of(answer.held() ? 1L : 0L, answer.writerWaits() ? 1L : 0L, answer.firstToken());
                }
                case 7 -> {
                    description = "renew " + field;
                    List<Object> renewed = redis.eval(ScriptsOnRedis.script("rw/renew.lua"), ScriptOutputType.MULTI,
                            new String[] {KEYS.lock(), KEYS.leases()}, Long.toString(LEASE), field);
                    real = renewed.get(0);
                    modelled = model.renew(field, millis(LEASE)) ? 1L : 0L;
                }
                case 8 -> {
                    String writer = owner + ":write";
                    description = "abandon " + writer;
                    real = redis.eval(ScriptsOnRedis.script("rw/abandon.lua"), ScriptOutputType.INTEGER,
                            new String[] {KEYS.lock(), KEYS.leases(), KEYS.writers(), KEYS.readChannel()}, writer, "publish");
                    modelled = model.abandon(writer) ? 1L : 0L;
                }
                default -> {
                    boolean forceReading = random.nextBoolean();
                    description = "force " + (forceReading ? "read" : "write");
                    real = release(forceReading ? "read" : "write", "", "force", "");
                    modelled = model.force(forceReading) ? 1L : 0L;
                }
            }
            calls.add(description + " -> " + real);
            String context = "seed " + seed + ", calls:\n  " + String.join("\n  ", calls);
            assertThat(normalised(modelled, real)).as(context).isEqualTo(real);
            for (String each : OWNERS) {
                for (String side : List.of("read", "write")) {
                    List<Object> inspected = redis.eval(ScriptsOnRedis.script("rw/inspect.lua"), ScriptOutputType.MULTI,
                            new String[] {KEYS.lock(), KEYS.leases()}, side, each + ":" + side);
                    assertThat(model.count(each + ":" + side)).as("%s\n  levels of %s:%s", context, each, side)
                            .isEqualTo(inspected.get(2));
                }
            }
            scripts.awaitPublished(modelPublished.size());
            assertThat(scripts.published()).as(context).isEqualTo(modelPublished);
        }
        scripts.published().clear();
    }

    private static long millis(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** '' mostly; now and then 'fresh', the field's token, or a token it does not have. */
    private static String heldArgument(Random random, String field, ReadWriteModel model) {
        int kind = random.nextInt(6);
        if (kind == 0 || field.startsWith("c2") && kind < 3) {
            return "fresh";
        }
        if (kind == 1) {
            long token = model.token(field);
            return token == 0 ? "7" : Long.toString(token);
        }
        if (kind == 2) {
            return Long.toString(1 + random.nextInt(9));
        }
        return "";
    }

    private static Long release(String field, String call, String mode, String token) {
        return redis.eval(ScriptsOnRedis.script("rw/release.lua"), ScriptOutputType.INTEGER,
                new String[] {KEYS.lock(), KEYS.leases(), KEYS.writers(), KEYS.channel(), KEYS.readChannel()},
                field, "publish", call, mode, token);
    }

    /**
     * The wait in a "wait" answer is a remaining lease or place, which the model does not count
     * down: the model's stands for Redis's when Redis's is at most that and less than
     * {@link #ELAPSED} shorter.
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

    /** @return the wait of a "wait" answer, else -1 */
    private static long busyWait(Object answer) {
        if (answer instanceof List<?> list && list.size() == 2 && Long.valueOf(0L).equals(list.get(0))
                && list.get(1) instanceof Long wait && wait >= 0) {
            return wait;
        }
        return -1;
    }
}
