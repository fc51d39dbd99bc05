package io.latchkey.rw;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What one call of each read-write lock script does inside Redis with 1, 100 and 1,000 readers
 * holding the lock, and with 1, 100 and 1,000 writers waiting: the commands it runs, counted by
 * {@code INFO commandstats}, must be the same for every number, so that the cost of an acquire or
 * a release does not grow with the readers (no script walks the holds or the waiting writers one
 * command each). Counted, not timed, as {@code FairLockAcquireCostTest} does; speed is the
 * benchmarks' job.
 */
class ReadWriteLockCostTest {

    private static final int[] SIZES = {1, 100, 1_000};
    private static final int CALLS = 20;
    private static final Set<String> NOT_COUNTED = Set.of("evalsha", "info");
    /** The fixture's holds: shorter than every measured call's, so the measured hold's lease is the latest. */
    private static final long FIXTURE_LEASE = 600_000;
    private static final String PLACE = "3600000";

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static final Map<String, String> SHA = new LinkedHashMap<>();

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        connection = client.connect();
        redis = connection.sync();
        for (String script : List.of("acquire.lua", "release.lua", "abandon.lua", "inspect.lua", "renew.lua", "reserve.lua")) {
            SHA.put(script, redis.scriptLoad(script(script)));
        }
    }

    @AfterAll
    static void stopRedis() {
        connection.close();
        client.shutdown();
        server.close();
    }

    /** One lock with its fixture: readers that hold it, or a writer that holds it and writers that wait. */
    private static final class Lock {

        final int size;
        final String name;
        final String leases;
        final String writers;
        final String[] acquireKeys;
        final String[] releaseKeys;
        private int calls;

        Lock(String kind, int size) {
            this.size = size;
            this.name = "cost-rw:" + kind + ":" + size;
            this.leases = "latchkey:{" + name + "}:leases";
            this.writers = "latchkey:{" + name + "}:writers";
            this.acquireKeys = new String[] {name, leases, writers, LockKeys.of(name).fenceCounter()};
            this.releaseKeys = new String[] {name, leases, writers, "latchkey:{" + name + "}:channel",
                "latchkey:{" + name + "}:read-channel"};
        }

        /** @return a lease longer than every earlier call's, so that each call sets a lease end of its own */
        private String lease() {
            return Long.toString(FIXTURE_LEASE + 1_000 + ++calls);
        }

        long read(String owner) {
            return read(owner, lease());
        }

        long read(String owner, String lease) {
            List<Object> reply = redis.evalsha(SHA.get("acquire.lua"), ScriptOutputType.MULTI, acquireKeys,
                    "read", lease, owner + ":read", owner + ":write", "call-" + calls, "", PLACE);
            return (Long) reply.get(0);
        }

        long write(String owner) {
            return write(owner, lease());
        }

        long write(String owner, String lease) {
            List<Object> reply = redis.evalsha(SHA.get("acquire.lua"), ScriptOutputType.MULTI, acquireKeys,
                    "write", lease, owner + ":write", owner + ":read", "call-" + calls, "", PLACE);
            return (Long) reply.get(0);
        }

        Long release(String field) {
            return redis.evalsha(SHA.get("release.lua"), ScriptOutputType.INTEGER, releaseKeys, field, "publish",
                    "call-" + ++calls, "release", "");
        }

        Long abandon(String writer) {
            return redis.evalsha(SHA.get("abandon.lua"), ScriptOutputType.INTEGER,
                    new String[] {name, leases, writers, releaseKeys[4]}, writer + ":write", "publish");
        }

        void inspect(String side) {
            redis.evalsha(SHA.get("inspect.lua"), ScriptOutputType.MULTI, new String[] {name, leases}, side, "x:1:" + side);
        }

        void reserve(String owner) {
            String field = owner + ":read";
            List<Object> reply = redis.evalsha(SHA.get("reserve.lua"), ScriptOutputType.MULTI, acquireKeys, field,
                    redis.hget(name, field + ":token"), "65");
            expect((Long) reply.get(0), 1, "the reserve");
        }

        void renew(String field) {
            redis.evalsha(SHA.get("renew.lua"), ScriptOutputType.MULTI, new String[] {name, leases}, lease(), field);
        }

        void expect(long answer, long expected, String what) {
            if (answer != expected) {
                throw new AssertionError(what + " answered " + answer + " on " + name);
            }
        }
    }

    /** {@code size} readers hold the lock. */
    private static Lock readers(int size) {
        Lock lock = new Lock("readers", size);
        for (int i = 0; i < size; i++) {
            lock.expect(lock.read("reader:" + i, Long.toString(FIXTURE_LEASE)), 1, "a fixture reader");
        }
        assertThat(redis.zcard(lock.leases)).isEqualTo(size);
        return lock;
    }

    /** A writer holds the lock and {@code size} writers wait. */
    private static Lock waitingWriters(int size) {
        Lock lock = new Lock("writers", size);
        lock.expect(lock.write("holder", Long.toString(FIXTURE_LEASE)), 1, "the fixture writer");
        for (int i = 0; i < size; i++) {
            lock.expect(lock.write("waiter:" + i), 0, "a fixture waiting writer");
        }
        assertThat(redis.zcard(lock.writers)).isEqualTo(size);
        return lock;
    }

    /** One measured script call with what must come before and after it (not counted). */
    private record Scenario(String name, Consumer<Lock> before, Consumer<Lock> measured, Consumer<Lock> after) {
    }

    private static final Consumer<Lock> NOTHING = lock -> { };

    private static final List<Scenario> WITH_READERS = List.of(
            new Scenario("acquire, read: a new reader joins the readers",
                    NOTHING, lock -> lock.expect(lock.read("arrival"), 1, "the arrival"), lock -> lock.release("arrival:read")),
            new Scenario("acquire, read: a reader re-enters",
                    NOTHING, lock -> lock.read("reader:0"), lock -> lock.release("reader:0:read")),
            new Scenario("release: a reader leaves, the others stay",
                    lock -> lock.read("leaver"), lock -> lock.release("leaver:read"), NOTHING),
            new Scenario("acquire, write: a writer waits for the readers",
                    NOTHING, lock -> lock.expect(lock.write("writer"), 0, "the writer"), lock -> lock.abandon("writer")),
            new Scenario("acquire, read: a new reader waits behind the waiting writer",
                    lock -> lock.write("writer"), lock -> lock.expect(lock.read("late"), 0, "the late reader"),
                    lock -> lock.abandon("writer")),
            new Scenario("abandon: the waiting writer gives up, waking the readers",
                    lock -> lock.write("writer"), lock -> lock.abandon("writer"), NOTHING),
            new Scenario("renew: one reader's lease",
                    NOTHING, lock -> lock.renew("reader:0:read"), NOTHING),
            new Scenario("inspect: the read side",
                    NOTHING, lock -> lock.inspect("read"), NOTHING),
            new Scenario("reserve: a client's shared read hold, no writer waiting",
                    NOTHING, lock -> lock.reserve("reader:0"), NOTHING),
            new Scenario("reserve: a client's shared read hold while a writer waits",
                    lock -> lock.write("writer"), lock -> lock.reserve("reader:0"), lock -> lock.abandon("writer")));

    private static final List<Scenario> WITH_WAITING_WRITERS = List.of(
            new Scenario("acquire, write: a waiting writer tries again",
                    NOTHING, lock -> lock.expect(lock.write("waiter:0"), 0, "the waiter"), NOTHING),
            new Scenario("acquire, write: a new writer joins the waiting writers",
                    NOTHING, lock -> lock.write("newcomer"), lock -> lock.abandon("newcomer")),
            new Scenario("abandon: one of the waiting writers gives up",
                    lock -> lock.write("leaver"), lock -> lock.abandon("leaver"), NOTHING),
            new Scenario("acquire, read: a new reader waits for the writer",
                    NOTHING, lock -> lock.expect(lock.read("late"), 0, "the late reader"), NOTHING),
            new Scenario("release: the writer leaves, waking one waiting writer",
                    NOTHING, lock -> lock.release("holder:write"), lock -> lock.expect(lock.write("holder"), 1, "the holder")),
            new Scenario("inspect: the write side",
                    NOTHING, lock -> lock.inspect("write"), NOTHING));

    @Test
    void everyScriptRunsTheSameCommandsWithOneOrAThousandReaders() {
        assertSameCostForEverySize(WITH_READERS, ReadWriteLockCostTest::readers);
    }

    @Test
    void everyScriptRunsTheSameCommandsWithOneOrAThousandWaitingWriters() {
        assertSameCostForEverySize(WITH_WAITING_WRITERS, ReadWriteLockCostTest::waitingWriters);
    }

    private static void assertSameCostForEverySize(List<Scenario> scenarios, IntFunction<Lock> fixture) {
        redis.flushall();
        List<Lock> locks = new ArrayList<>();
        for (int size : SIZES) {
            locks.add(fixture.apply(size));
        }
        for (Scenario scenario : scenarios) {
            Map<Integer, Set<Long>> commands = new LinkedHashMap<>();
            for (Lock lock : locks) {
                Set<Long> counts = commands.computeIfAbsent(lock.size, size -> new TreeSet<>());
                for (int i = 0; i < CALLS; i++) {
                    scenario.before().accept(lock);
                    long before = commandsRun();
                    scenario.measured().accept(lock);
                    counts.add(commandsRun() - before);
                    scenario.after().accept(lock);
                }
            }
            assertThat(commands.get(SIZES[0])).as("%s: commands per call by size %s", scenario.name(), commands)
                    .hasSize(1)
                    .isEqualTo(commands.get(SIZES[1]))
                    .isEqualTo(commands.get(SIZES[2]));
        }
    }

    /** @return how many commands Redis ran so far, the scripts' own included, less the uncounted */
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

    private static String script(String name) {
        try (InputStream in = ReadWriteLockCostTest.class.getResourceAsStream("/io/latchkey/internal/rw/" + name)) {
            assertThat(in).as("script resource %s", name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
