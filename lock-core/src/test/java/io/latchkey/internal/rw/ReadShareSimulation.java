package io.latchkey.internal.rw;

import io.latchkey.LocalHandOff;
import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.simulation.SeededSchedule;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.RenewedLease;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.netty.util.Timeout;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A deterministic simulation of shared reads below Redis: several clients' real {@link ReadShares}
 * and {@link ReadShare}s (with their {@link AdmissionBudget}, {@link AdmittedReaders} and
 * {@link ShareLoss}) and {@link HoldRegistry}s, over a {@link ReadWriteModel} of the read-write
 * lock's scripts instead of Redis, one {@link ManualTimer} for every timer, and owners that run the
 * acquire loop's steps: readers through the share as {@link SharedReadProtocol} routes them
 * (fixed leases and what the share does not admit go to Redis with a read hold of their own),
 * writers in Redis, telling their client's share of a "wait" as {@link WriteLockProtocol} does.
 * Every asynchronous step is an event: a command reaching Redis, its answer reaching the client,
 * a message reaching a client, an owner's next step, time passing. A seeded {@link Random} picks
 * the next event and injects faults: refused tries, lost answers (a lost try is undone as
 * {@code HoldCalls} settles it), lost wake-ups, lost connections, a client's watchdog stalled
 * until its shared hold's lease runs out in Redis, force-unlocks, failovers, clients closed under
 * their owners. The same seed replays the same schedule, with its trace if asked.
 *
 * <p>After every step it checks: no writer holds within a lease Redis confirmed while another
 * writer or any reader (local admissions included) does, holders of force-unlocked or failed-over
 * holds excepted (the documented limit); every local admission keeps the rules that
 * {@link AdmissionChecks} states; tokens of new holds are unique, and those Redis grants grow;
 * every local reader that still holds reads on its client's current shared hold (a loss reached
 * every reader); nobody waits on a free lock longer than {@link #FREE_WAIT_BOUND_NANOS}; every
 * owner's call ends within {@link #CALL_BOUND_NANOS} of its deadline; and once all have left, no
 * share, hold or Redis hold is left. Not thread-safe: one thread runs it.
 */
final class ReadShareSimulation extends SeededSchedule {

    static final Duration LEASE = Duration.ofMillis(600);
    static final Duration COMMAND = Duration.ofMillis(50);
    /** A waiting writer's place: the watchdog lease, as ReadWriteSide sets it. */
    static final Duration PLACE = LEASE;
    static final int MAX_ADMISSIONS = 4;
    static final Duration MAX_TIME = Duration.ofMillis(50);
    static final long FREE_WAIT_BOUND_NANOS = LEASE.toNanos() * 2;
    /** How long after its deadline an owner's call may still be under way. */
    static final long CALL_BOUND_NANOS = LEASE.toNanos() * 2;
    private static final long ANCHOR_HOLD_NANOS = LEASE.toNanos() * 2;
    private static final String LOCK = "simulated-rw";
    private static final Object KEY = LOCK;
    private static final Object READ_SIDE = "read";
    private static final Object WRITE_SIDE = "write";

    /** What the simulation injects, each with its chance per step. */
    record Faults(double lateAnswers, double dropMessage, double refuseTry, double loseTryAnswer, double loseReadAnswer,
                  double loseReleaseAnswer, double loseConnection, double stallWatchdog, double forceUnlock, double failover,
                  double closeClient) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        static final Faults LATE = new Faults(0.02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        static final Faults SOME = new Faults(0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.002, 0.002, 0.001, 0.0005, 0);
        static final Faults SOME_AND_CLOSE = new Faults(0.01, 0.02, 0.01, 0.01, 0.02, 0.01, 0.002, 0.002, 0.001, 0.0005, 0.0005);
    }

    private final ReadWriteModel model = new ReadWriteModel(clock);
    private final AdmissionChecks checks;
    private final Faults faults;
    private final List<Client> clients = new ArrayList<>();
    private final List<Owner> owners = new ArrayList<>();
    private final Set<Long> tokens = new HashSet<>();
    private long maxRedisToken;
    private long exemptUpTo;
    private long lockBusyAt;
    private long seq;
    private boolean anyClosed;
    private boolean failedOver;

    /**
     * @param readers reader owners per client
     * @param writers writer owners per client
     * @param hotAttempts if positive, the first client's readers make that many attempts each, with
     *     long waits, so that its share admits readers on and on while the others' writers wait
     */
    ReadShareSimulation(long seed, int clientCount, int readers, int writers, int attempts, int hotAttempts, Faults faults,
                        boolean traced) {
        super(seed, traced, 800, "latchkey.rwsimulation.seed");
        this.faults = faults;
        this.checks = new AdmissionChecks(model, MAX_ADMISSIONS, MAX_TIME.toNanos(), COMMAND.toNanos(), this::fail);
        for (int c = 0; c < clientCount; c++) {
            Client client = new Client("c" + c);
            clients.add(client);
            for (int o = 0; o < readers + writers; o++) {
                boolean hot = c == 0 && hotAttempts > 0 && o < readers;
                owners.add(new Owner(client, 100 * (c + 1) + o, o < readers, hot ? hotAttempts : o < readers ? 2 * attempts : attempts,
                        hot));
            }
        }
    }

    @Override
    protected boolean settled() {
        return owners.stream().allMatch(Owner::done)
                && clients.stream().allMatch(client -> client.commands.isEmpty() && client.answers.isEmpty());
    }

    // ---- the scheduler -------------------------------------------------------------------------

    @Override
    protected void offerChoices() {
        for (Client client : clients) {
            if (!client.commands.isEmpty()) {
                choose(client::execute, () -> client.id + " command");
            }
            if (!client.answers.isEmpty() && clock.read() - client.answersLateUntil >= 0) {
                choose(client::answer, () -> client.id + " answer");
            }
            if (!client.messages.isEmpty()) {
                choose(client::deliver, () -> client.id + " message");
            }
        }
        if (random.nextInt(16) == 0) {
            Owner asking = owners.get(random.nextInt(owners.size()));
            if (!asking.client.closed) {
                choose(asking::query, () -> asking + " asks its hold count");
            }
        }
        for (Owner owner : owners) {
            if (owner.mayStart()) {
                choose(owner::start, () -> owner + " start");
            } else if (owner.mayRelease()) {
                choose(owner::release, () -> owner + " release");
                if (owner.mayReenter()) {
                    choose(owner::reenter, () -> owner + " re-enter");
                }
            }
        }
    }

    @Override
    protected void injectFaults() {
        if (chance(faults.failover)) {
            model.loseLock();
            exempt();
            failedOver = true;
            log(() -> "FAULT failover: the lock's keys are lost; holds up to token " + exemptUpTo + " may overlap");
            for (Client client : clients) {
                while (!client.answers.isEmpty()) {
                    client.answer();
                }
            }
            clients.stream().filter(client -> !client.closed).forEach(Client::connectionLost);
        }
        if (chance(faults.forceUnlock)) {
            Client by = clients.get(random.nextInt(clients.size()));
            boolean reading = random.nextBoolean();
            by.write("force-unlock of the " + (reading ? "read" : "write") + " side", () -> {
                boolean ended = model.force(reading);
                if (ended) {
                    // Every hold given so far may be believed in until its client hears of it: the documented limit.
                    exempt();
                }
                return ended;
            }, 0, false).whenComplete((ended, failure) -> {
                ReadShare share = by.shares.existing(KEY);
                if (reading && Boolean.TRUE.equals(ended) && share != null) {
                    share.losses().forced();
                }
            });
        }
        for (Client client : clients) {
            if (client.closed) {
                continue;
            }
            if (chance(faults.loseConnection)) {
                log(() -> "FAULT " + client.id + " lost its connection");
                client.connectionLost();
            }
            if (chance(faults.lateAnswers)) {
                long millis = 1 + random.nextInt(60);
                client.answersLateUntil = clock.read() + TimeUnit.MILLISECONDS.toNanos(millis);
                log(() -> "FAULT " + client.id + "'s answers are late by " + millis + " ms");
            }
            if (chance(faults.stallWatchdog)) {
                long millis = 300 + random.nextInt(1200);
                boolean sent = random.nextBoolean();
                client.stalledUntil = clock.read() + TimeUnit.MILLISECONDS.toNanos(millis);
                client.stallSends = sent;
                log(() -> "FAULT " + client.id + "'s renewals " + (sent ? "fail" : "are not sent (a long pause)") + " for " + millis + " ms");
            }
            if (chance(faults.closeClient)) {
                log(() -> "FAULT " + client.id + " closed");
                client.close();
            }
        }
    }

    private void exempt() {
        exemptUpTo = Math.max(exemptUpTo, model.counter());
        checks.exemptUpTo(exemptUpTo);
    }

    private long nextSeq() {
        return ++seq;
    }

    @Override
    protected String describeState() {
        return "model: " + model + "\n  clients: " + clients;
    }

    // ---- invariants ----------------------------------------------------------------------------

    @Override
    protected void check() {
        long now = clock.read();
        Owner writer = null;
        Owner reader = null;
        for (Owner owner : owners) {
            if (owner.inside(now) && owner.hold.token() > exemptUpTo) {
                if (owner.reader) {
                    reader = owner;
                } else if (writer != null) {
                    fail("two writers hold at once: " + writer + " and " + owner);
                } else {
                    writer = owner;
                }
            }
        }
        if (writer != null && reader != null) {
            fail("writer " + writer + " holds while reader " + reader + " does");
        }
        for (Owner owner : owners) {
            if (owner.inside(now) && owner.sharedHold != 0 && owner.hold.token() > exemptUpTo
                    && model.token(owner.sharedField) != owner.sharedHold) {
                fail(owner + " reads within its confirmed lease on shared hold " + owner.sharedHold + ", which Redis no longer has");
            }
        }
        for (Owner owner : owners) {
            owner.checkSharedHold();
        }
        if (model.busy()) {
            lockBusyAt = now;
        }
        for (Owner owner : owners) {
            if (owner.state == State.WAITING && !owner.client.closed
                    && now - Math.max(owner.waitingSince, lockBusyAt) > FREE_WAIT_BOUND_NANOS) {
                fail(owner + " waits on a free lock since " + (now - Math.max(owner.waitingSince, lockBusyAt)) / 1e6 + " ms");
            }
            if ((owner.state == State.TRYING || owner.state == State.WAITING) && now - owner.deadline > CALL_BOUND_NANOS) {
                fail(owner + "'s call has not ended " + (now - owner.deadline) / 1e6 + " ms after its deadline");
            }
        }
    }

    /** A new hold began, in Redis or by a local admission: its token is its own. */
    private void newHold(Owner owner, long token) {
        if (!tokens.add(token)) {
            fail(owner + " began a hold with token " + token + ", which an earlier hold had");
        }
    }

    /** Redis granted a new hold: its token exceeds every earlier one Redis granted. */
    private void redisGranted(String field, long token) {
        if (token <= maxRedisToken) {
            fail(field + " was granted token " + token + ", not above " + maxRedisToken);
        }
        maxRedisToken = token;
    }

    @Override
    protected void checkLeftNothing() {
        for (Client client : clients) {
            if (!client.closed && client.shares.size() != 0) {
                fail(client.id + " kept a share after every owner left: " + client.shares);
            }
            if (!client.closed && client.holds.size() != 0) {
                fail(client.id + " kept a hold after every owner left");
            }
        }
        if (!anyClosed && !failedOver && model.busy()) {
            fail("Redis keeps a hold or a waiting writer after every owner left");
        }
    }

    @Override
    protected String describeOwners() {
        StringBuilder out = new StringBuilder();
        owners.forEach(owner -> out.append("\n    ").append(owner).append(' ').append(owner.state));
        return out.toString();
    }

    // ---- clients -------------------------------------------------------------------------------

    /** One client: its shares and holds, its command connection (in order), its subscriptions, its watchdog. */
    private final class Client {
        final String id;
        final ReadShares shares = new ReadShares(new LocalHandOff(MAX_ADMISSIONS, MAX_TIME));
        final HoldRegistry holds = new HoldRegistry(timer, clock);
        final ArrayDeque<Supplier<Answer>> commands = new ArrayDeque<>();
        final ArrayDeque<Answer> answers = new ArrayDeque<>();
        final ArrayDeque<String> messages = new ArrayDeque<>();
        final Map<String, Long> sequences = new LinkedHashMap<>();
        final List<ChannelWait> waits = new ArrayList<>();
        final List<Runnable> connectionObservers = new ArrayList<>();
        final Map<RenewedLease, String> renewals = new LinkedHashMap<>();
        long stalledUntil;
        /** While stalled: renewals are sent and refused, else none is sent. */
        boolean stallSends;
        /** No answer reaches the client before this time: its connection is slow for a while. */
        long answersLateUntil;
        boolean closed;
        boolean disconnected;
        Timeout renewal;
        int calls;
        /** The local admissions counted for a reserve sent by the share's try now under way, or null. */
        long[] reserveSentInTry;

        Client(String id) {
            this.id = id;
            model.subscribe((channel, message) -> {
                if (!disconnected) {
                    messages.add(channel);
                }
            });
        }

        String nextCall() {
            return id + "-" + ++calls;
        }

        void execute() {
            answers.add(commands.poll().get());
        }

        void answer() {
            answers.poll().delivered().run();
        }

        void deliver() {
            String channel = messages.poll();
            if (chance(faults.dropMessage)) {
                log(() -> "FAULT " + id + " lost a message on the " + channel + " channel");
                return;
            }
            sequences.merge(channel, 1L, Long::sum);
            List.copyOf(waits).stream().filter(wait -> wait.channel.equals(channel)).forEach(wait -> wait.done.complete(null));
        }

        long sequence(String channel) {
            return sequences.getOrDefault(channel, 0L);
        }

        void connectionLost() {
            ReadShare share = shares.existing(KEY);
            if (share != null && share.state() == ReadShare.State.HELD) {
                checks.doubted(id, 0, nextSeq());
            }
            // What ran and was not answered yet is answered never: the connection it would come on is gone.
            List<Answer> unanswered = List.copyOf(answers);
            answers.clear();
            unanswered.forEach(answer -> answers.add(new Answer(answer.lost(), answer.lost())));
            List.copyOf(connectionObservers).forEach(Runnable::run);
        }

        /** As {@code LockClient.close()}: shares and holds first, the connections a step later. */
        void close() {
            closed = true;
            anyClosed = true;
            shares.close();
            renewals.clear();
            holds.close();
            ready.add(() -> {
                log(() -> id + " disconnected");
                disconnected = true;
                messages.clear();
                List.copyOf(waits).forEach(wait -> wait.done.completeExceptionally(LockExceptions.closedWhileWaiting()));
            });
        }

        /**
         * Sends a command on the client's one connection: Redis runs the commands in order and the
         * answers come back in order.
         *
         * @param refuse the chance that Redis refuses it (it does not run)
         * @param lose the chance that it runs and its answer is lost
         * @param settle what settles it if its answer is lost (run once the client hears so), or null
         */
        <T> CompletableFuture<T> send(String what, Supplier<T> atRedis, double refuse, double lose, Runnable settle) {
            return send(what, atRedis, refuse, lose, settle, new long[1]);
        }

        /** @param ranAt set to the event at which Redis took the command (ran or refused it) */
        <T> CompletableFuture<T> send(String what, Supplier<T> atRedis, double refuse, double lose, Runnable settle, long[] ranAt) {
            CompletableFuture<T> reply = new CompletableFuture<>();
            if (disconnected) {
                reply.completeExceptionally(LockExceptions.clientClosed());
                return reply;
            }
            commands.add(() -> {
                ranAt[0] = nextSeq();
                if (chance(refuse)) {
                    log(() -> "FAULT " + id + " " + what + " refused");
                    Runnable refused = () -> reply.completeExceptionally(LockExceptions.unreachable(LOCK, new RuntimeException("simulated")));
                    return new Answer(refused, refused);
                }
                T result = atRedis.get();
                log(() -> id + " " + what + " ran: " + result);
                Runnable lost = () -> {
                    if (settle != null) {
                        settle.run();
                    }
                    reply.completeExceptionally(LockExceptions.timedOut(LOCK, COMMAND, null));
                };
                if (chance(lose)) {
                    log(() -> "FAULT " + id + " " + what + ": answer lost");
                    return new Answer(lost, lost);
                }
                return new Answer(() -> reply.complete(result), lost);
            });
            return reply;
        }

        /** A command that changes the lock; one that fails (refused or answer lost) is not tried again. */
        <T> CompletableFuture<T> write(String what, Supplier<T> atRedis, double lose, boolean refusable) {
            return send(what, atRedis, refusable ? faults.refuseTry : 0, lose, null);
        }

        /** A read, or a call the same twice (a reserve, a renewal, a query): its answer is lost now and then. */
        <T> CompletableFuture<T> read(String what, Supplier<T> atRedis) {
            return send(what, atRedis, 0, faults.loseReadAnswer, null);
        }

        /** A try: refused now and then, or run with its answer lost, then undone as HoldCalls settles it. */
        CompletableFuture<ReadWriteModel.Acquired> tryHold(String what, boolean reading, String field, String sibling,
                                                           LeaseTerm lease, String held, int block) {
            String call = nextCall();
            Runnable undo = () -> settled("undo of " + call, () -> {
                Long left = model.release(field, call, "undo", 0);
                if (!reading) {
                    model.abandon(field); // WriteLockProtocol.afterUndo
                }
                return left;
            });
            return send(what, () -> {
                ReadWriteModel.Acquired answer = model.acquire(reading, field, sibling,
                        TimeUnit.MILLISECONDS.toNanos(lease.millis()), call, held, PLACE.toNanos(), block);
                if (answer.status() == 1 && answer.countOrWait() == 1) {
                    redisGranted(field, answer.token());
                    if (!reading) {
                        checks.writerGranted(answer.token());
                    }
                }
                return answer;
            }, faults.refuseTry, faults.loseTryAnswer, undo);
        }

        /** A release or a settling call: never refused, since the real client settles it before the owner's next call. */
        <T> CompletableFuture<T> settled(String what, Supplier<T> atRedis) {
            return send(what, atRedis, 0, 0, null);
        }

        /** A release: its answer may be lost (it ran), as a deferred release reports. */
        CompletableFuture<Long> release(String what, String field) {
            String call = nextCall();
            return send(what, () -> model.release(field, call, "release", 0), 0, faults.loseReleaseAnswer, null);
        }

        void scheduleRenewal() {
            if (renewal == null && !closed) {
                renewal = timer.newTimeout(timeout -> renew(), LEASE.toNanos() / 3, TimeUnit.NANOSECONDS);
            }
        }

        private void renew() {
            renewal = null;
            if (renewals.isEmpty() || closed) {
                return;
            }
            boolean stalled = clock.read() - stalledUntil < 0;
            if (stalled && !stallSends) {
                scheduleRenewal();
                return;
            }
            new LinkedHashMap<>(renewals).forEach((lease, field) -> {
                long sentAt = clock.read();
                long[] ranAt = {0};
                send("renew " + field, () -> model.renew(field, LEASE.toNanos()), stalled ? 1 : 0, faults.loseReadAnswer, null, ranAt)
                        .whenComplete((held, failure) -> {
                            if (renewals.get(lease) == null) {
                                return;
                            }
                            if (failure != null) {
                                ReadShare share = shares.existing(KEY);
                                if (share != null) {
                                    long token;
                                    synchronized (share) {
                                        token = share.isHeld() ? share.redisToken() : -1;
                                    }
                                    // Redis took the renewal (or its connection failed) at ranAt: what it ran after that is newer.
                                    checks.doubted(id, token, ranAt[0] != 0 ? ranAt[0] : nextSeq());
                                }
                                lease.renewalFailed();
                            } else if (held) {
                                lease.renewed(sentAt, sentAt + LEASE.toNanos());
                            } else {
                                renewals.remove(lease);
                                lease.foundGone();
                            }
                        });
            });
            scheduleRenewal();
        }

        @Override
        public String toString() {
            return id + (closed ? " (closed)" : "") + ": " + shares;
        }
    }

    /** What reaches the client for a command that ran: its answer, or, if the connection is lost first, its failure. */
    private record Answer(Runnable delivered, Runnable lost) {
    }

    /** One wait of an owner on a channel. */
    private record ChannelWait(String channel, CompletableFuture<Void> done) {
    }

    /** A share's Redis side over the model, through its client's connection. */
    private final class Side implements ShareRedis {
        private final Client client;
        private final String field;
        private final int block;

        Side(Client client, long self, int block) {
            this.client = client;
            this.field = client.id + ":" + self + ":read";
            this.block = block;
        }

        @Override
        public String lockName() {
            return LOCK;
        }

        @Override
        public Ticker ticker() {
            return clock;
        }

        @Override
        public Duration commandTimeout() {
            return COMMAND;
        }

        @Override
        public CompletableFuture<TryResult> tryShareHold(LeaseTerm lease) {
            long sentAt = clock.read();
            long sentSeq = nextSeq();
            String sibling = field.substring(0, field.length() - ":read".length()) + ":write";
            return client.tryHold("try for the shared hold " + field, true, field, sibling, lease, "fresh", block)
                    .thenApply(answer -> {
                        if (answer.status() != 1) {
                            return TryResult.busy(answer.countOrWait());
                        }
                        checks.shareGranted(client.id, field, answer.token(), block, sentSeq, sentAt);
                        return TryResult.acquired(new RedisGrant(client, null, answer.token(),
                                sentAt + TimeUnit.MILLISECONDS.toNanos(lease.millis())));
                    });
        }

        @Override
        public CompletableFuture<Void> releaseShareHold() {
            client.renewals.values().removeIf(field::equals);
            return client.release("release of the shared hold " + field, field).thenApply(left -> null);
        }

        @Override
        public void endShareHold(long token) {
            client.settled("end of shared hold " + token, () -> model.release(field, "", "end", token));
        }

        @Override
        public CompletableFuture<Reserved> reserve(long token) {
            long sentAt = clock.read();
            long sentSeq = nextSeq();
            long[] admissions = {checks.admissions(client.id, token)};
            client.reserveSentInTry = admissions;
            long[] ranAt = {0};
            return client.send("reserve " + field, () -> model.reserve(field, token, block), 0, faults.loseReadAnswer, null, ranAt)
                    .thenApply(answer -> {
                checks.reserveAnswered(client.id, token, sentSeq, ranAt[0], sentAt, admissions[0], answer, block, nextSeq());
                return answer;
            });
        }

        @Override
        public CompletableFuture<Boolean> holdsShareHold() {
            return client.read("count of " + field, () -> model.count(field) > 0);
        }

        @Override
        public void renew(RenewedLease lease) {
            client.renewals.put(lease, field);
            client.scheduleRenewal();
        }

        @Override
        public void stopRenewing(RenewedLease lease) {
            client.renewals.remove(lease);
        }

        @Override
        public Runnable observeConnection(Runnable lost) {
            client.connectionObservers.add(lost);
            return () -> client.connectionObservers.remove(lost);
        }
    }

    /** A grant of Redis: an owner's own hold ends in Redis when given up for lost, as HoldCalls does. */
    private final class RedisGrant implements TryResult.Grant {
        private final Client client;
        private final String field;
        private final long token;
        private final long until;

        RedisGrant(Client client, String field, long token, long until) {
            this.client = client;
            this.field = field;
            this.token = token;
            this.until = until;
        }

        @Override
        public long fencingToken() {
            return token;
        }

        @Override
        public long confirmedUntilNanos() {
            return until;
        }

        @Override
        public void start(Hold hold) {
            if (field == null) {
                throw new AssertionError("the share's own grant is never recorded as an owner's hold");
            }
            hold.onLoss((lost, mayRemainInRedis) -> {
                if (mayRemainInRedis) {
                    client.settled("end of own hold " + token, () -> model.release(field, "", "end", token));
                }
            });
        }
    }

    // ---- owners --------------------------------------------------------------------------------

    private enum State { IDLE, TRYING, WAITING, HOLDING, RELEASING }

    /** One owner, a reader or a writer: the acquire loop's steps, then a hold, then its release, a few times over. */
    private final class Owner {
        final Client client;
        final long id;
        final boolean reader;
        final String field;
        final String sibling;
        int attemptsLeft;
        State state = State.IDLE;
        LeaseTerm lease;
        long deadline;
        String channel;
        ChannelWait wait;
        Hold hold;
        /** The token of the shared hold it reads on, or 0 if its hold is its own in Redis. */
        long sharedHold;
        /** That shared hold's field in Redis. */
        String sharedField;
        String pendingSharedField;
        int levels;
        final boolean hot;
        /** The hot client's first reader holds for long, so its shared hold lives on renewals (and their pauses). */
        final boolean anchor;
        long heldSince;
        long waitingSince;

        Owner(Client client, long id, boolean reader, int attempts, boolean hot) {
            this.hot = hot;
            this.anchor = hot && id % 100 == 0;
            this.client = client;
            this.id = id;
            this.reader = reader;
            this.field = client.id + ":" + id + (reader ? ":read" : ":write");
            this.sibling = client.id + ":" + id + (reader ? ":write" : ":read");
            this.attemptsLeft = attempts;
        }

        boolean done() {
            return state == State.IDLE && (attemptsLeft == 0 || client.closed);
        }

        boolean mayStart() {
            return state == State.IDLE && attemptsLeft > 0 && !client.closed;
        }

        boolean mayRelease() {
            return state == State.HOLDING && clock.read() - heldSince > (anchor ? ANCHOR_HOLD_NANOS : 0);
        }

        boolean mayReenter() {
            return reader && levels < 3 && !client.closed && random.nextInt(4) == 0;
        }

        /** @return whether it holds within a lease Redis confirmed */
        boolean inside(long now) {
            return state == State.HOLDING && hold.isHeld() && hold.confirmedAt(now);
        }

        void start() {
            attemptsLeft--;
            lease = !hot && random.nextInt(6) == 0 ? new LeaseTerm(100 + random.nextInt(400), false) : LeaseTerm.watchdog(LEASE);
            int kind = hot ? 9 : random.nextInt(10);
            long waitMillis = kind < 2 ? 0 : kind < 8 ? 20 + random.nextInt(600) : 3_000;
            deadline = clock.read() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
            log(() -> this + " starts: lease " + lease + ", wait " + waitMillis + " ms");
            state = State.TRYING;
            tryOnce();
        }

        private void tryOnce() {
            long seen = channel == null ? 0 : client.sequence(channel);
            CompletableFuture<TryResult> tried = reader ? readTry() : writeTry();
            tried.whenComplete((answer, failure) -> {
                long shareToken = failure == null ? admittedOn(answer) : 0;
                later(() -> afterTry(answer, failure, seen, shareToken));
            });
        }

        /** SharedReadProtocol.tryAcquire for a new reader. */
        private CompletableFuture<TryResult> readTry() {
            if (!lease.renewed()) {
                return ownTry(0);
            }
            ReadShare.Routes routes = new ReadShare.Routes() {
                @Override
                public CompletableFuture<TryResult> again() {
                    return readTry();
                }

                @Override
                public CompletableFuture<TryResult> own() {
                    return ownTry(0);
                }
            };
            while (true) {
                ReadShare share = client.shares.of(KEY, (self, block) -> new Side(client, self, block));
                CompletableFuture<TryResult> tried = share.tryNew(id, lease, routes);
                long[] reserveSent = client.reserveSentInTry;
                client.reserveSentInTry = null;
                if (reserveSent != null && tried != null && tried.isDone() && !tried.isCompletedExceptionally()
                        && tried.join().grant() instanceof LocalGrant grant && grant.fencingToken() != share.redisToken()) {
                    // The try admitted its reader before it sent the reserve: the reserve counts it.
                    reserveSent[0]++;
                }
                if (tried != null) {
                    return tried;
                }
            }
        }

        /** A try with a hold of the owner's own in Redis, as ReadWriteSide makes it. */
        private CompletableFuture<TryResult> ownTry(long heldToken) {
            long sentAt = clock.read();
            return client.tryHold((reader ? "read" : "write") + " try of " + id, reader, field, sibling, lease,
                    heldToken == 0 ? "" : Long.toString(heldToken), 1).thenApply(answer -> {
                        if (answer.status() == 0) {
                            return TryResult.busy(answer.countOrWait());
                        }
                        if (answer.status() < 0) {
                            return TryResult.goneHold();
                        }
                        return TryResult.acquired(new RedisGrant(client, field, answer.token(),
                                sentAt + TimeUnit.MILLISECONDS.toNanos(lease.millis())));
                    });
        }

        /** WriteLockProtocol.tryAcquire: a "wait" tells the client's share that a writer's place is in Redis. */
        private CompletableFuture<TryResult> writeTry() {
            return ownTry(0).thenApply(result -> {
                if (!result.acquired() && !result.holdGone()) {
                    ReadShare share = client.shares.existing(KEY);
                    if (share != null && share.state() == ReadShare.State.HELD) {
                        checks.writerKnown(client.id, nextSeq());
                    }
                    client.shares.readers(KEY).writerWaits();
                }
                return result;
            });
        }

        /** @return the token of the shared hold a local grant was made on, 0 for Redis's grants; checks a local admission */
        private long admittedOn(TryResult answer) {
            if (!answer.acquired() || !(answer.grant() instanceof LocalGrant)) {
                return 0;
            }
            ReadShare share = client.shares.existing(KEY);
            if (share == null) {
                fail(this + " was admitted by a share its client no longer has");
            }
            long shareToken;
            synchronized (share) {
                shareToken = share.redisToken();
            }
            pendingSharedField = ((Side) share.redis()).field;
            long token = answer.grant().fencingToken();
            if (token != shareToken) {
                log(() -> this + " admitted locally, token " + token + " on shared hold " + shareToken);
                checks.admitted(client.id, id, token, shareToken, clock.read());
            }
            return shareToken;
        }

        private void afterTry(TryResult answer, Throwable failure, long seen, long shareToken) {
            if (failure != null) {
                log(() -> this + " failed: " + Failures.unwrap(failure).getMessage());
                leave();
            } else if (answer.acquired()) {
                TryResult.Grant grant = answer.grant();
                Hold admitted = client.holds.granted(reader ? READ_SIDE : WRITE_SIDE, LOCK, reader ? "read" : "write", id,
                        grant.fencingToken(), grant.confirmedUntilNanos(), lease.renewed());
                if (admitted.isGivenUp()) {
                    grant.refuse();
                    log(() -> this + " granted on a hold given up");
                    leave();
                    return;
                }
                grant.start(admitted);
                newHold(this, grant.fencingToken());
                closeWait();
                hold = admitted;
                sharedHold = shareToken;
                sharedField = shareToken == 0 ? null : pendingSharedField;
                levels = 1;
                heldSince = clock.read();
                state = State.HOLDING;
                log(() -> this + " holds, token " + grant.fencingToken() + (shareToken != 0 ? " on shared hold " + shareToken : ""));
            } else if (answer.sharedFailure() != null && clock.read() - deadline < 0) {
                tryOnce();
            } else if (clock.read() - deadline >= 0) {
                log(() -> this + " gives up");
                leave();
            } else if (channel == null) {
                channel = reader ? ReadWriteModel.READERS : ReadWriteModel.WRITERS;
                state = State.WAITING;
                waitingSince = clock.read();
                tryOnce();
            } else {
                state = State.WAITING;
                long bound = Math.min(deadline - clock.read(), answer.waitMillis() < 0 ? Long.MAX_VALUE
                        : Math.max(TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(answer.waitMillis())));
                await(seen, bound);
            }
        }

        private void await(long seen, long boundNanos) {
            if (client.sequence(channel) != seen) {
                later(this::tryOnce);
                return;
            }
            if (client.disconnected) {
                later(this::leave);
                return;
            }
            ChannelWait current = new ChannelWait(channel, new CompletableFuture<>());
            wait = current;
            client.waits.add(current);
            Timeout bound = timer.newTimeout(timeout -> current.done.complete(null), Math.max(1, boundNanos), TimeUnit.NANOSECONDS);
            current.done.whenComplete((ok, failure) -> {
                client.waits.remove(current);
                bound.cancel();
                if (wait == current) {
                    wait = null;
                    later(failure != null ? this::leave : this::tryOnce);
                }
            });
        }

        private void closeWait() {
            channel = null;
            if (wait != null) {
                ChannelWait current = wait;
                wait = null;
                current.done.complete(null);
            }
        }

        /** Leaves without the lock; a writer leaves the waiting writers, as WriteLockProtocol.abandon does. */
        private void leave() {
            closeWait();
            if (!reader) {
                client.settled("abandon of " + id, () -> model.abandon(field));
            }
            state = State.IDLE;
        }

        /** A re-entry of the hold: local for a reader on the shared hold, else in Redis, as SharedReadProtocol routes it. */
        void reenter() {
            state = State.TRYING;
            long heldToken = hold.token();
            ReadShare share = client.shares.existing(KEY);
            TryResult local = share == null ? null : share.reenter(id, heldToken);
            CompletableFuture<TryResult> tried = local != null ? CompletableFuture.completedFuture(local) : ownTry(heldToken);
            deadline = clock.read();
            tried.whenComplete((answer, failure) -> later(() -> {
                state = State.HOLDING;
                if (failure != null) {
                    return;
                }
                if (answer.holdGone()) {
                    hold.lose("a re-entry found it gone", false);
                } else if (answer.acquired()) {
                    Hold again = client.holds.granted(READ_SIDE, LOCK, "read", id, answer.grant().fencingToken(),
                            answer.grant().confirmedUntilNanos(), lease.renewed());
                    if (again != hold || again.isGivenUp()) {
                        answer.grant().refuse();
                        return;
                    }
                    answer.grant().start(again);
                    levels++;
                    log(() -> this + " re-entered, " + levels + " levels");
                }
            }));
        }

        /** isHeldByCurrentThread: the share's answer once Redis confirmed the shared hold. */
        void query() {
            ReadShare share = client.shares.existing(KEY);
            LocalRead local = share == null ? null : share.localRead(id);
            if (local != null) {
                local.confirmed().whenComplete((count, failure) -> log(() -> this + " holds " + count + " levels"));
            }
        }

        /** Releases one level, as LockHolds.release and SharedReadProtocol.release do. */
        void release() {
            Hold releasing = hold;
            log(() -> this + " releases token " + releasing.token() + ", " + levels + " levels");
            if (releasing.isGivenUp()) {
                releasing.end();
                state = State.IDLE;
                return;
            }
            state = State.RELEASING;
            releasing.releasing();
            ReadShare share = reader ? client.shares.existing(KEY) : null;
            CompletableFuture<Void> released = share == null ? null : share.release(id);
            if (released == null) {
                released = client.release("release of " + id, field).thenApply(left -> {
                    if (left == null) {
                        throw LockExceptions.notHeld(LOCK, id);
                    }
                    return null;
                });
            }
            released.whenComplete((ok, failure) -> later(() -> {
                if (failure != null && Failures.unwrap(failure) instanceof IllegalMonitorStateException) {
                    releasing.lose("the release found it gone", false);
                }
                if (releasing.isLost()) {
                    releasing.end();
                    state = State.IDLE;
                } else if (releasing.leave()) {
                    state = State.IDLE;
                } else {
                    levels--;
                    state = State.HOLDING;
                }
            }));
        }

        /** A reader on the shared hold that still holds reads on its client's current shared hold: a loss reached it. */
        void checkSharedHold() {
            if (state != State.HOLDING || sharedHold == 0 || !hold.isHeld()) {
                return;
            }
            ReadShare share = client.shares.existing(KEY);
            boolean current;
            if (share == null) {
                current = false;
            } else {
                synchronized (share) {
                    current = share.holdsInRedis(sharedHold) && share.readsLocally(id);
                }
            }
            if (!current) {
                fail(this + " still holds on shared hold " + sharedHold + ", which its client lost");
            }
        }

        private void later(Runnable next) {
            ready.add(next);
        }

        @Override
        public String toString() {
            return client.id + "/" + id + (reader ? "r" : "w");
        }
    }
}
