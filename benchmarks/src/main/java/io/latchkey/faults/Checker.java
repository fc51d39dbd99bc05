package io.latchkey.faults;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The checker: a Redis of its own, apart from the lock's, that sees every hold from outside the
 * lock. A holder marks its entry and exit of a lock's critical section ({@code checker-enter.lua},
 * {@code checker-exit.lua}); an entry that finds a holder inside that excludes it is an overlap:
 * a writer (an exclusive holder) excludes everyone, a reader (a shared holder of a read-write
 * lock) excludes writers only. Each writer writes to a resource guarded by its fencing token
 * ({@code checker-write.lua}), which refuses a token below the highest written or read and counts
 * a write accepted although a later hold had entered; each reader reads it, refused below the
 * highest token written and counted stale when a later writer had entered. Counters are kept per
 * fault, in one hash, so that a killed worker loses none, and per lock kind in another.
 *
 * <p>Not thread-safe for {@link #close()}; the other methods may be called from any thread (one
 * Lettuce connection, multiplexed). The checker never fails on purpose: a call that fails here
 * is a harness failure, not a lock failure.
 */
final class Checker implements AutoCloseable {

    static final String STATS = "faults:stats";
    static final String FAULT = "faults:current";
    static final String LAST_ENTRY = "faults:last-entry";
    static final String KINDS = "faults:kinds";

    /** The counters each fault's row shows, as the scripts name them. */
    static final String ACQUISITIONS = "acquisitions";
    static final String OVERLAPS = "overlaps";
    static final String REFUSED = "refused";
    static final String STALE_ACCEPTED = "stale_accepted";
    static final String MAX_GAP_MS = "max_gap_ms";
    /** Per kind only: holds, reads among them, and reads that entered beside other readers (of its worker). */
    static final String HOLDS = "holds";
    static final String READS = "reads";
    static final String READS_BESIDE_READERS = "reads_beside_readers";
    static final String READS_BESIDE_OWN_READERS = "reads_beside_own_readers";

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String enter;
    private final String write;
    private final String exit;

    Checker(String uri) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(TIMEOUT);
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
        this.redis = connection.sync();
        this.enter = redis.scriptLoad(script("checker-enter.lua"));
        this.write = redis.scriptLoad(script("checker-write.lua"));
        this.exit = redis.scriptLoad(script("checker-exit.lua"));
    }

    /**
     * Marks {@code holder} inside the critical section of {@code lock} and makes its first write
     * (a writer) or read (a reader).
     *
     * @param kind the lock's kind, for the per-kind counters
     * @param shared a reader: let in beside other readers
     * @return the outcome; see {@link Entry}
     */
    Entry enter(String lock, LockKind kind, boolean shared, String holder, long token) {
        List<Long> reply = redis.evalsha(enter, ScriptOutputType.MULTI,
                new String[] {inside(lock), resource(lock), STATS, FAULT, LAST_ENTRY, readers(lock), KINDS},
                holder, Long.toString(token), lock, access(shared), kind.key());
        return new Entry(reply.get(0), reply.get(1).intValue());
    }

    /**
     * Writes (a reader: reads) the fenced resource of {@code lock} again.
     *
     * @return 1 written or read, 0 refused, 2 accepted although stale
     */
    int write(String lock, LockKind kind, boolean shared, String holder, long token) {
        Long outcome = redis.evalsha(write, ScriptOutputType.INTEGER,
                new String[] {resource(lock), STATS, FAULT, KINDS}, holder, Long.toString(token), access(shared),
                kind.key());
        return outcome.intValue();
    }

    /** Marks {@code holder} outside the critical section of {@code lock}. */
    void exit(String lock, String holder) {
        redis.evalsha(exit, ScriptOutputType.INTEGER, new String[] {inside(lock), readers(lock)}, holder);
    }

    /**
     * Removes every holder of one worker from the critical sections, once its JVM is known dead.
     *
     * @param holderPrefix the worker's holder prefix, ending in ':'
     */
    void removeWorker(List<String> locks, String holderPrefix) {
        for (String lock : locks) {
            exit(lock, holderPrefix);
        }
    }

    /** Names the fault under way: from now on the scripts count under that name. */
    void startFault(String fault) {
        redis.set(FAULT, fault);
    }

    /** @return every counter of the run: {@code <fault>:<counter>} → value */
    Map<String, String> counters() {
        return redis.hgetall(STATS);
    }

    /** @return every per-kind counter of the run: {@code <kind>:<counter>} → value */
    Map<String, String> kindCounters() {
        return redis.hgetall(KINDS);
    }

    /** Empties the checker's keys, for a fresh run on a given checker Redis. */
    void clear(List<String> locks) {
        redis.del(STATS, FAULT, LAST_ENTRY, KINDS);
        for (String lock : locks) {
            redis.del(inside(lock), readers(lock), resource(lock));
        }
    }

    private static String access(boolean shared) {
        return shared ? "read" : "write";
    }

    private static String inside(String lock) {
        return "faults:inside:" + lock;
    }

    private static String readers(String lock) {
        return "faults:readers:" + lock;
    }

    private static String resource(String lock) {
        return "faults:resource:" + lock;
    }

    private static String script(String name) {
        try (InputStream in = Checker.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    /**
     * What an entry found.
     *
     * @param othersInside how many holders that exclude this one were inside already (0 unless
     *     exclusion failed)
     * @param write 1 written (or read), 0 refused, 2 accepted although stale
     */
    record Entry(long othersInside, int write) {
    }
}
