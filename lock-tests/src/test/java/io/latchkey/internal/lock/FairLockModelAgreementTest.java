package io.latchkey.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.scripts.ScriptsOnRedis;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the fair grant simulation's {@link FairLockModel} honest: the same short random scenarios
 * of lock-fair's script calls, as FairLockProtocol sends them (acquire.lua: a try with a new
 * secret, which takes the lock, re-enters, takes a grant or queues; a take of a held or granted
 * token, sent again with the same call id too; release.lua's release, undo and end, by the right
 * and a wrong call id or token; abandon.lua with the secret of the owner's last try answered
 * "queued", a wrong one, or '') run against a real Redis and against the model, and after every
 * call both must answer the same, hold the same lock hash (counts, tokens, call ids, grant
 * proofs), queue, deadlines, secrets and counter, expire the lock and the line's keys at about
 * the same moment, and have published the same messages (a waiter's name, or a grant's
 * {@code <waiter> <token> <proof>}). Leases and places are long, so that nothing runs out within a
 * scenario; the two leases (20 s, 90 s), half the place (30 s) and a grant's deadline (the place,
 * 60 s, after the waiter's last try) are far enough apart for the waits and expiries to tell them
 * apart. The scenarios must have done each of {@link #OUTCOMES} at least once.
 *
 * <p>The model's Redis clock is driven in step with Redis's: a script's TIME cannot be read from
 * outside, so the test reads Redis's TIME just before each call and gives the model that, unless
 * the call shows its own: a new token is max(counter + 1, TIME in µs), checked to be a TIME between
 * just before and just after the call (or counter + 1), and is then the model's reading (from which
 * it must compute the same token); a try that queued left TIME in ms plus the place as its
 * deadline. So tokens and deadlines must agree exactly, and the waits and expiries, which Redis
 * takes at its own moment in the call, within {@link #ELAPSED}.
 */
class FairLockModelAgreementTest {

    private static final String LOCK = "model-fair";
    private static final LockKeys KEYS = LockKeys.of(LOCK);
    private static final String QUEUE = KEYS.derived("queue");
    private static final String TIMEOUTS = KEYS.derived("timeouts");
    private static final String SECRETS = KEYS.derived("secrets");
    private static final String ACQUIRE = ScriptsOnRedis.script("fair/acquire.lua");
    private static final String RELEASE = ScriptsOnRedis.script("fair/release.lua");
    private static final String ABANDON = ScriptsOnRedis.script("fair/abandon.lua");
    /** Three clients, one with two owners. */
    private static final String[] FIELDS = {"c0:1", "c0:2", "c1:1", "c2:-9223372036854775808"};
    private static final long[] LEASES = {20_000, 90_000};
    private static final long PLACE = 60_000;
    /** How far Redis's waits and expiries may be from the model's, taken at another moment of the call. */
    private static final long ELAPSED = 5_000;
    private static final int SCENARIOS = 200;
    private static final int CALLS = 25;
    /** What the scenarios must have done, all of them at least once, for the agreement to mean much. */
    private static final Set<String> OUTCOMES = Set.of("try: takes the lock", "try: re-enters", "try: takes a grant",
            "try: queues", "take: the held token", "take: the granted token",
            "take: the granted token, a lease shorter than the next one's place",
            "take: the granted token, a lease that outlasts the next one's place", "take: sent again", "take: a token not there",
            "release: leaves holds", "release: grants the next with a proof", "release: the last, nobody waiting",
            "release: sent again", "release: a grant not taken", "undo: the owner's last acquire", "undo: another call",
            "end: by the token", "end: by a wrong token", "abandon: leaves the line", "abandon: not in line",
            "abandon: gives a grant back by its secret", "abandon: keeps a grant for a wrong secret",
            "abandon: keeps a grant without a secret");

    private static ScriptsOnRedis scripts;
    private static RedisCommands<String, String> redis;

    /** How many calls of the scenarios did each thing. */
    private final Map<String, Integer> covered = new TreeMap<>();

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

    @Test
    void theModelAnswersAsTheScriptsDoInEveryScenario() {
        for (long seed = 1; seed <= SCENARIOS; seed++) {
            redis.flushall();
            scripts.awaitPublished(scripts.published().size());
            scripts.published().clear();
            scenario(seed);
        }
        assertThat(covered.keySet()).as("what the scenarios did: %s", covered).containsAll(OUTCOMES);
    }

    private void scenario(long seed) {
        Random random = new Random(seed);
        // The model's Redis TIME, in ns (µs and ms of it as Redis's), set before each call.
        long[] reading = {scripts.serverMicros() * 1_000};
        List<String> modelPublished = new ArrayList<>();
        FairLockModel model = new FairLockModel(() -> reading[0], 0, PLACE, modelPublished::add);
        Map<String, String> lastAcquire = new HashMap<>();
        Map<String, String> lastRelease = new HashMap<>();
        Map<String, String> queuedSecret = new HashMap<>();
        List<String> calls = new ArrayList<>();
        for (int call = 0; call < CALLS; call++) {
            int kind = random.nextInt(14);
            String field = field(random, model, kind);
            String id = "call-" + seed + "-" + call;
            String count = model.count(field);
            String marker = model.hash().get(field + ":call");
            int published = modelPublished.size();
            long counterBefore = counter();
            long before = scripts.serverMicros();
            @Nullable Object real;
            @Nullable Object modelled;
            String description;
            String outcome;
            switch (kind) {
                case 0, 1, 2, 3 -> {
                    long lease = LEASES[random.nextInt(LEASES.length)];
                    String secret = "secret-" + seed + "-" + call;
                    description = "try " + id + " of " + field + " lease " + lease;
                    List<Object> reply = acquire(field, lease, id, "", secret);
                    real = reply;
                    reading[0] = acquireReading(reply, field, counterBefore, before, scripts.serverMicros(),
                            "seed " + seed + ", " + description);
                    modelled = model.acquire(field, lease, id, "", secret);
                    lastAcquire.put(field, id);
                    if (Long.valueOf(0L).equals(reply.get(0))) {
                        queuedSecret.put(field, secret);
                        outcome = "try: queues";
                    } else {
                        outcome = count == null ? "try: takes the lock" : count.equals("0") ? "try: takes a grant" : "try: re-enters";
                    }
                }
                case 4, 5 -> {
                    long lease = LEASES[random.nextInt(LEASES.length)];
                    String held = heldArgument(random, field, model);
                    String taking = random.nextInt(3) == 0 ? lastAcquire.getOrDefault(field, id) : id;
                    boolean someoneInLine = model.anyoneInLine();
                    description = "take " + taking + " of " + field + " held " + held + " lease " + lease;
                    List<Object> reply = acquire(field, lease, taking, held, "");
                    real = reply;
                    reading[0] = acquireReading(reply, field, counterBefore, before, scripts.serverMicros(),
                            "seed " + seed + ", " + description);
                    modelled = model.acquire(field, lease, taking, held, "");
                    lastAcquire.put(field, taking);
                    outcome = !Long.valueOf(1L).equals(reply.get(0)) ? "take: a token not there"
                            : taking.equals(marker) ? "take: sent again"
                            : !"0".equals(count) ? "take: the held token"
                            : !someoneInLine ? "take: the granted token"
                            : modelPublished.size() > published ? "take: the granted token, a lease shorter than the next one's place"
                            : "take: the granted token, a lease that outlasts the next one's place";
                }
                case 6, 7, 8 -> {
                    String releasing = random.nextInt(4) == 0 ? lastRelease.getOrDefault(field, id) : id;
                    description = "release " + releasing + " of " + field;
                    Long left = release(field, releasing, "release", null);
                    real = left;
                    reading[0] = releaseReading(counterBefore, before, scripts.serverMicros(), "seed " + seed + ", " + description);
                    modelled = model.release(field, releasing, "release", null);
                    lastRelease.put(field, releasing);
                    outcome = releaseOutcome(left, count, releasing.equals(marker), modelPublished.subList(published,
                            modelPublished.size()));
                }
                case 9 -> {
                    String undone = random.nextInt(3) != 0 ? lastAcquire.getOrDefault(field, id) : id;
                    description = "undo " + undone + " of " + field;
                    Long left = release(field, undone, "undo", null);
                    real = left;
                    reading[0] = releaseReading(counterBefore, before, scripts.serverMicros(), "seed " + seed + ", " + description);
                    modelled = model.release(field, undone, "undo", null);
                    outcome = left == null ? "undo: another call" : "undo: the owner's last acquire";
                }
                case 10 -> {
                    String token = model.token(field);
                    String ended = token != null && random.nextBoolean() ? token : Long.toString(1 + random.nextInt(9));
                    description = "end " + id + " of " + field + " token " + ended;
                    Long left = release(field, id, "end", ended);
                    real = left;
                    reading[0] = releaseReading(counterBefore, before, scripts.serverMicros(), "seed " + seed + ", " + description);
                    modelled = model.release(field, id, "end", ended);
                    outcome = left != null ? "end: by the token" : token != null ? "end: by a wrong token" : "end: no hold";
                }
                default -> {
                    String secret = switch (random.nextInt(3)) {
                        case 0 -> queuedSecret.getOrDefault(field, "");
                        case 1 -> "forged-" + seed + "-" + call;
                        default -> "";
                    };
                    description = "abandon of " + field + " with '" + secret + "'";
                    boolean grant = "0".equals(count) && model.hash().containsKey(field + ":grant");
                    boolean inLine = model.queue().contains(field);
                    real = redis.eval(ABANDON, ScriptOutputType.INTEGER,
                            new String[] {QUEUE, TIMEOUTS, KEYS.channel(), LOCK, SECRETS}, field, "publish", secret);
                    reading[0] = before * 1_000;
                    modelled = model.abandon(field, secret);
                    if (grant && Long.valueOf(1L).equals(real)) {
                        outcome = "abandon: gives a grant back by its secret";
                    } else if (grant) {
                        outcome = secret.isEmpty() ? "abandon: keeps a grant without a secret" : "abandon: keeps a grant for a wrong secret";
                    } else {
                        outcome = inLine ? "abandon: leaves the line" : "abandon: not in line";
                    }
                }
            }
            calls.add(description + " -> " + real);
            covered.merge(outcome, 1, Integer::sum);
            String context = "seed " + seed + ", calls:\n  " + String.join("\n  ", calls) + "\n  model: " + model;
            assertThat(normalised(modelled, real)).as(context).isEqualTo(real);
            assertThat(modelState(model)).as(context).isEqualTo(redisState());
            Map<String, Long> expiries = redisExpiries();
            assertThat(near(modelExpiries(model, Math.floorDiv(reading[0], 1_000_000L)), expiries)).as("%s\n  expiries", context)
                    .isEqualTo(expiries);
            scripts.awaitPublished(modelPublished.size());
            assertThat(scripts.published()).as(context).isEqualTo(modelPublished);
        }
        scripts.published().clear();
    }

    /** @return what a release did, from its answer, the owner's count and call id before it, and the messages it sent */
    private static String releaseOutcome(@Nullable Long left, @Nullable String count, boolean sentAgain, List<String> messages) {
        if (sentAgain) {
            return "release: sent again";
        }
        if (left == null) {
            return "0".equals(count) ? "release: a grant not taken" : "release: nothing held";
        }
        if (left > 0) {
            return "release: leaves holds";
        }
        if (messages.stream().anyMatch(message -> message.contains(" "))) {
            return "release: grants the next with a proof";
        }
        return messages.isEmpty() ? "release: the last, nobody waiting" : "release: the last, wakes the next";
    }

    /**
     * @param kind the call's kind: 0 to 3 a try, 4 to 10 a take, release, undo or end, else an abandon
     * @return a field at random; for a take, release, undo or end half the time one with a hold or
     *     a grant, and for an abandon one in line or with a grant, if there is one: most such calls of
     *     any field would find nothing to do
     */
    private static String field(Random random, FairLockModel model, int kind) {
        List<String> likely = new ArrayList<>();
        for (String field : FIELDS) {
            String count = model.count(field);
            if (kind >= 4 && kind <= 10 ? count != null : kind > 10 && ("0".equals(count) || model.queue().contains(field))) {
                likely.add(field);
            }
        }
        return !likely.isEmpty() && random.nextBoolean() ? likely.get(random.nextInt(likely.size()))
                : FIELDS[random.nextInt(FIELDS.length)];
    }

    /**
     * The model's clock reading for an acquire that Redis answered so: a new token's TIME, checked
     * against the rule, max(counter + 1, TIME), with TIME between {@code before} and {@code after};
     * a queued try's TIME in ms, from its deadline, checked to lie between them; else {@code before}.
     *
     * @return the reading in nanoseconds
     */
    private static long acquireReading(List<Object> reply, String field, long counterBefore, long before, long after, String what) {
        if (Long.valueOf(1L).equals(reply.get(0)) && (Long) reply.get(2) > counterBefore) {
            return tokenReading((Long) reply.get(2), counterBefore, before, after, what);
        }
        if (Long.valueOf(0L).equals(reply.get(0))) {
            Double deadline = redis.zscore(TIMEOUTS, field);
            assertThat(deadline).as("%s: the queued try's deadline", what).isNotNull();
            long now = deadline.longValue() - PLACE;
            assertThat(now).as("%s: the queued try's TIME, from its deadline, in ms", what)
                    .isBetween(before / 1_000, after / 1_000);
            return Math.max(before, now * 1_000) * 1_000;
        }
        return before * 1_000;
    }

    /** @return the reading in nanoseconds for a release: its grant's token's TIME, else {@code before} */
    private static long releaseReading(long counterBefore, long before, long after, String what) {
        long counter = counter();
        return counter > counterBefore ? tokenReading(counter, counterBefore, before, after, what) : before * 1_000;
    }

    /**
     * @return the TIME reading in ns that gives {@code token} by the rule: the token itself (the
     *     rule gives the same for a token of counter + 1)
     */
    private static long tokenReading(long token, long counterBefore, long before, long after, String what) {
        assertThat(token).as("%s: a new token, at least Redis's TIME before the call", what).isGreaterThanOrEqualTo(before);
        if (token != counterBefore + 1) {
            assertThat(token).as("%s: a token from the clock, at most Redis's TIME after the call", what)
                    .isLessThanOrEqualTo(after);
        }
        return token * 1_000;
    }

    /** The owner's token mostly (a held hold's, or a grant's to take); now and then one it does not have. */
    private static String heldArgument(Random random, String field, FairLockModel model) {
        String token = model.token(field);
        if (token != null && random.nextInt(4) != 0) {
            return token;
        }
        return Long.toString(1 + random.nextInt(9));
    }

    private static long counter() {
        String counter = redis.get(KEYS.fenceCounter());
        return counter == null ? 0 : Long.parseLong(counter);
    }

    private static List<Object> acquire(String field, long lease, String call, String held, String secret) {
        return redis.eval(ACQUIRE, ScriptOutputType.MULTI,
                new String[] {LOCK, QUEUE, TIMEOUTS, KEYS.channel(), KEYS.fenceCounter(), SECRETS},
                Long.toString(lease), field, Long.toString(PLACE), "publish", call, held, secret);
    }

    private static @Nullable Long release(String field, String call, String mode, @Nullable String token) {
        List<String> args = new ArrayList<>(List.of(field, "publish", call, mode));
        if (token != null) {
            args.add(token);
        }
        return redis.eval(RELEASE, ScriptOutputType.INTEGER,
                new String[] {LOCK, QUEUE, KEYS.channel(), TIMEOUTS, KEYS.fenceCounter(), SECRETS}, args.toArray(String[]::new));
    }

    /**
     * The wait in a "queued" answer is the holder's remaining lease, half the place, or what is
     * left of the first one's place, which Redis reads at its own moment in the call: the model's
     * stands for Redis's when they are less than {@link #ELAPSED} apart.
     *
     * @return Redis's answer when the model's agrees with it so, else the model's
     */
    private static @Nullable Object normalised(@Nullable Object modelled, @Nullable Object real) {
        if (modelled instanceof List<?> modelAnswer && real instanceof List<?> redisAnswer && queuedWait(modelAnswer) >= 0
                && queuedWait(redisAnswer) >= 0 && modelAnswer.get(2).equals(redisAnswer.get(2))
                && Math.abs(queuedWait(modelAnswer) - queuedWait(redisAnswer)) < ELAPSED) {
            return real;
        }
        return modelled;
    }

    /** @return the wait of a "queued" answer, else -1 */
    private static long queuedWait(List<?> answer) {
        if (answer.size() == 3 && Long.valueOf(0L).equals(answer.get(0)) && answer.get(1) instanceof Long wait && wait >= 0) {
            return wait;
        }
        return -1;
    }

    /** @return the lock hash, the queue, deadlines, secrets and counter, read in one pipeline */
    private static Map<String, String> redisState() {
        RedisAsyncCommands<String, String> pipeline = scripts.pipeline();
        RedisFuture<Map<String, String>> hash = pipeline.hgetall(LOCK);
        RedisFuture<List<String>> queue = pipeline.lrange(QUEUE, 0, -1);
        RedisFuture<List<ScoredValue<String>>> timeouts = pipeline.zrangeWithScores(TIMEOUTS, 0, -1);
        RedisFuture<Map<String, String>> secrets = pipeline.hgetall(SECRETS);
        RedisFuture<String> counter = pipeline.get(KEYS.fenceCounter());
        Map<String, String> state = new TreeMap<>(answer(hash));
        put(state, "@queue", answer(queue).isEmpty() ? null : answer(queue).toString());
        Map<String, Long> deadlines = new TreeMap<>();
        for (ScoredValue<String> waiter : answer(timeouts)) {
            deadlines.put(waiter.getValue(), (long) waiter.getScore());
        }
        put(state, "@deadlines", deadlines.isEmpty() ? null : deadlines.toString());
        put(state, "@secrets", answer(secrets).isEmpty() ? null : new TreeMap<>(answer(secrets)).toString());
        put(state, "@counter", answer(counter));
        return state;
    }

    private static Map<String, String> modelState(FairLockModel model) {
        Map<String, String> state = new TreeMap<>(model.hash());
        put(state, "@queue", model.queue().isEmpty() ? null : model.queue().toString());
        put(state, "@deadlines", model.deadlines().isEmpty() ? null : new TreeMap<>(model.deadlines()).toString());
        put(state, "@secrets", model.secrets().isEmpty() ? null : new TreeMap<>(model.secrets()).toString());
        put(state, "@counter", model.counter() == 0 ? null : Long.toString(model.counter()));
        return state;
    }

    private static void put(Map<String, String> state, String key, @Nullable String value) {
        if (value != null) {
            state.put(key, value);
        }
    }

    /** @return PEXPIRETIME of the lock and the line's keys, in one pipeline: ms of Redis time, -1 for none, -2 for no key */
    private static Map<String, Long> redisExpiries() {
        RedisAsyncCommands<String, String> pipeline = scripts.pipeline();
        Map<String, RedisFuture<Long>> pending = new TreeMap<>();
        for (String key : List.of(LOCK, QUEUE, TIMEOUTS, SECRETS)) {
            pending.put(key, pipeline.pexpiretime(key));
        }
        Map<String, Long> expiries = new TreeMap<>();
        pending.forEach((key, expiry) -> expiries.put(key, answer(expiry)));
        return expiries;
    }

    /** @return a pipelined command's answer, once it came */
    private static <T> T answer(RedisFuture<T> command) {
        return command.toCompletableFuture().join();
    }

    /** @return the model's expiries of the same keys, as {@link #redisExpiries()} has them */
    private static Map<String, Long> modelExpiries(FairLockModel model, long nowMillis) {
        Map<String, Long> expiries = new TreeMap<>();
        long ttl = model.lockTtlMillis();
        expiries.put(LOCK, ttl < 0 ? ttl : nowMillis + ttl);
        long line = model.lineExpiresAtMillis();
        expiries.put(QUEUE, model.queue().isEmpty() ? -2 : line);
        expiries.put(TIMEOUTS, model.deadlines().isEmpty() ? -2 : line);
        expiries.put(SECRETS, model.secrets().isEmpty() ? -2 : line);
        return expiries;
    }

    /** @return the model's expiries, each replaced by Redis's if both are moments less than {@link #ELAPSED} apart */
    private static Map<String, Long> near(Map<String, Long> modelled, Map<String, Long> real) {
        Map<String, Long> near = new TreeMap<>(modelled);
        modelled.forEach((key, at) -> {
            Long redisAt = real.get(key);
            if (redisAt != null && at >= 0 && redisAt >= 0 && Math.abs(at - redisAt) < ELAPSED) {
                near.put(key, redisAt);
            }
        });
        return near;
    }
}
