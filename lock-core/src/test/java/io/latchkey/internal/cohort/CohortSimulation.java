package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import io.latchkey.LocalHandOff;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.simulation.SeededSchedule;
import io.latchkey.internal.time.ManualTimer;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A deterministic simulation of the cohorts of several clients on one lock, below Redis: the real
 * {@link Cohort}s, {@link Cohorts}, {@link CohortWakeups}, {@link LocalQueue} and the client's
 * {@link HoldRegistry}, over a {@link LockModel} of the lock's scripts instead of Redis, one
 * {@link ManualTimer} for every timer, and owners that run the acquire loop's steps (try; join the
 * wake-ups once subscribed and try again; wait for a wake-up or the holder's lease; give up when the
 * wait ends). Every asynchronous step is an event: a command reaching Redis, its answer reaching
 * the client, a message reaching a client's subscription, an owner's next step, time passing. A
 * seeded {@link Random} picks the next event, and injects faults: lost and forged notices, lost
 * connections, refused commands, lost answers of reads and renewals, force-unlocks, clients closed
 * under their owners. The same seed replays the same schedule exactly, with its trace if asked.
 *
 * <p>After every step it checks the invariants: at most one owner holds the lock within a lease
 * that Redis confirmed (holders of a force-unlocked hold excepted: the API's documented limit);
 * tokens of new holds grow strictly; no owner waits longer than a bound while the lock is free;
 * a client's hand-offs are bounded while an owner of another client waits; and once every owner
 * has left, no cohort, hold, mark or turn is left. Not thread-safe: one thread runs it.
 */
final class CohortSimulation extends SeededSchedule {

    static final Duration LEASE = Duration.ofMillis(600);
    static final Duration COMMAND = Duration.ofMillis(50);
    static final Duration TURN = PlainLockRedis.TURN;
    static final int MAX_HAND_OFFS = 4;
    static final Duration MAX_TIME = Duration.ofMillis(50);
    /** Hand-offs of one client while another's owner waits, at most: see {@link #checkBypass}. */
    static final int BYPASS_BOUND = 4 * MAX_HAND_OFFS + 2;
    /**
     * Hand-offs of one client's Redis hold while the waiting mark in Redis names another client, at
     * most: see {@link #checkMarkedBypass}.
     */
    static final int MARKED_BYPASS_BOUND = MAX_HAND_OFFS;
    /** How long an owner may wait while the lock is free and reserved for nobody. */
    static final long FREE_WAIT_BOUND_NANOS = LEASE.toNanos() * 2;
    private static final String LOCK = "simulated-lock";
    private static final Object IDENTITY = LOCK;

    /**
     * What the simulation injects, each with its chance per step; {@code dropWaitNotice} is a
     * further chance to lose a {@code !wait:} notice, and {@code stallConnection} the chance per
     * step that a client's connection stalls for 5 to 45 ms (its commands, answers and messages
     * held, as on a machine whose event loop gets no CPU), so that a holder learns of another
     * client's wait only by its own reads of the mark, and late.
     */
    record Faults(double dropNotice, double forgeForce, double loseConnection, double refuseWrite, double loseReadAnswer,
                  double forceUnlock, double closeClient, double failover, double loseBusyAnswer, double dropWaitNotice,
                  double stallConnection) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        static final Faults SOME = new Faults(0.01, 0.002, 0.002, 0.01, 0.02, 0.002, 0, 0.001, 0.02, 0, 0);
        static final Faults SOME_AND_CLOSE = new Faults(0.01, 0.002, 0.002, 0.01, 0.02, 0.002, 0.0005, 0.001, 0.02, 0, 0);
        static final Faults SLOW_AND_DEAF_TO_WAITS = new Faults(0.01, 0.002, 0.002, 0.01, 0.02, 0.002, 0, 0.001, 0.02, 0.9, 0.05);
    }

    private final LockModel model = new LockModel(clock);
    private final Faults faults;
    private final boolean instantHotHolds;
    private final List<Client> clients = new ArrayList<>();
    private final List<Owner> owners = new ArrayList<>();
    private long maxToken;
    /** The token of every hold an owner began: one token, one hold. */
    private final java.util.Set<Long> admittedTokens = new java.util.HashSet<>();
    /** Holds with tokens up to this one were force-unlocked under their owners. */
    private long exemptUpTo;
    private long lockBusyUntilNanos;
    private final Map<Client, Integer> bypass = new HashMap<>();
    /** Per holding client: the epoch of the mark that names another client, and its hand-offs since. */
    private final Map<Client, long[]> markedBypass = new HashMap<>();

    /**
     * @param hotAttempts if positive, the first client's owners make that many attempts each, with
     *     long waits, so that its cohort passes the lock around while the others' owners wait
     * @param instantHotHolds whether those hot owners hold for steps only, no time passing, so
     *     that a stall of a connection spans many hand-offs
     */
    CohortSimulation(long seed, int clientCount, int ownersPerClient, int attemptsPerOwner, int hotAttempts,
                     boolean instantHotHolds, Faults faults, boolean traced) {
        super(seed, traced, 600, "latchkey.simulation.seed");
        this.faults = faults;
        this.instantHotHolds = instantHotHolds;
        for (int c = 0; c < clientCount; c++) {
            Client client = new Client("c" + c);
            clients.add(client);
            for (int o = 0; o < ownersPerClient; o++) {
                owners.add(new Owner(client, 100 * (c + 1) + o, c == 0 && hotAttempts > 0 ? hotAttempts : attemptsPerOwner,
                        c == 0 && hotAttempts > 0));
            }
        }
    }

    @Override
    protected boolean settled() {
        for (Owner owner : owners) {
            if (!owner.done()) {
                return false;
            }
        }
        for (Client client : clients) {
            if (!client.commands.isEmpty() || !client.answers.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    // ---- the scheduler -------------------------------------------------------------------------

    @Override
    protected void offerChoices() {
        for (Client client : clients) {
            if (client.stalled()) {
                continue;
            }
            if (!client.commands.isEmpty()) {
                choose(client::execute, () -> client.id + " command");
            }
            if (!client.answers.isEmpty()) {
                choose(client::answer, () -> client.id + " answer");
            }
            if (!client.messages.isEmpty()) {
                choose(client::deliver, () -> client.id + " message");
            }
        }
        if (random.nextInt(16) == 0) {
            Owner asking = owners.get(random.nextInt(owners.size()));
            if (!asking.client.closed) {
                choose(asking::query, () -> asking + " asks whether it holds");
            }
        }
        for (Owner owner : owners) {
            if (owner.mayStart()) {
                choose(owner::start, () -> owner + " start");
            } else if (owner.mayRelease()) {
                choose(owner::release, () -> owner + " release");
            }
        }
    }

    @Override
    protected void injectFaults() {
        if (chance(faults.forgeForce)) {
            long forged = Math.max(1, maxToken - 2 + random.nextInt(4));
            log("FAULT forged !force:" + forged);
            clients.forEach(client -> client.messages.add("!force:" + forged));
        }
        if (chance(faults.failover)) {
            // A failover to a replica that had not received the lock hash (the counter had):
            // answers already on their way arrive first, then every client loses its connection.
            model.loseLock();
            exemptUpTo = Math.max(exemptUpTo, maxToken);
            log("FAULT failover: the lock hash is lost; holds up to token " + maxToken + " may overlap");
            for (Client client : clients) {
                client.stalledUntilNanos = 0; // the connection breaks: a stall ends with it
                while (!client.answers.isEmpty()) {
                    client.answer();
                }
            }
            clients.stream().filter(client -> !client.closed).forEach(Client::connectionLost);
        }
        if (chance(faults.forceUnlock)) {
            boolean deleted = model.forceRelease();
            log("FAULT force-unlock: " + deleted);
            if (deleted) {
                // Every hold given so far, granted or still on its way, may be believed in until
                // its client hears of the force-unlock: the API's documented limit.
                exemptUpTo = Math.max(exemptUpTo, model.counter());
            }
        }
        for (Client client : clients) {
            if (chance(faults.stallConnection)) {
                long millis = 5 + random.nextInt(41);
                client.stalledUntilNanos = Math.max(client.stalledUntilNanos, clock.read() + TimeUnit.MILLISECONDS.toNanos(millis));
                log("FAULT " + client.id + " stalls for " + millis + " ms");
            }
            if (!client.closed && chance(faults.loseConnection)) {
                log("FAULT " + client.id + " lost its connection");
                client.connectionLost();
            }
            if (!client.closed && chance(faults.closeClient)) {
                log("FAULT " + client.id + " closed");
                client.close();
            }
        }
    }

    @Override
    protected String describeState() {
        return "model: " + model;
    }

    // ---- invariants ----------------------------------------------------------------------------

    @Override
    protected void check() {
        long now = clock.read();
        Owner holder = null;
        for (Owner owner : owners) {
            if (owner.holds() && owner.hold.confirmedAt(now) && owner.hold.token() > exemptUpTo) {
                if (holder != null) {
                    fail("two owners hold at once: " + holder + " and " + owner);
                }
                holder = owner;
            }
        }
        if (model.locked() || model.turn() != null) {
            lockBusyUntilNanos = now;
        }
        for (Owner owner : owners) {
            if (owner.state == State.WAITING && now - Math.max(owner.waitingSince, lockBusyUntilNanos) > FREE_WAIT_BOUND_NANOS
                    && !owner.client.closed) {
                fail(owner + " waits on a free lock since " + (now - Math.max(owner.waitingSince, lockBusyUntilNanos)) / 1e6 + " ms");
            }
        }
    }

    /**
     * A local hand-off of {@code client} while an owner of another client waits: counted per
     * waiting client until one of its owners is granted or none waits. The cohort hears of the
     * waiter by a notice, by its grant's answer, or by its own read of the mark every half
     * bound; it must hear before a whole bound past its last answered read, so the count stays
     * within a few bounds where connections do not stall.
     */
    private void checkBypass(Client client) {
        for (Client other : clients) {
            if (other == client || other.closed) {
                continue;
            }
            boolean waits = owners.stream().anyMatch(owner -> owner.client == other && owner.state == State.WAITING);
            if (!waits) {
                bypass.remove(other);
                continue;
            }
            if (other.stalled()) {
                continue; // its try may not have reached Redis: only checkMarkedBypass applies
            }
            int count = bypass.merge(other, 1, Integer::sum);
            if (count > BYPASS_BOUND) {
                fail(client.id + " handed off " + count + " times while an owner of " + other.id + " waited; bound " + BYPASS_BOUND);
            }
        }
    }

    /**
     * A local hand-off of {@code client} while the waiting mark in Redis names another client,
     * counted from the later of the marking (this value of the mark: one that was deleted or
     * expired between, and set again, counts afresh) and the client's Redis acquisition. A read of
     * the mark answered "nobody" ran before the marking, so it was sent before the hand-offs
     * counted here; the cohort passes the hold at most a bound of hand-offs past the newest such
     * read, and once it hears of the mark, at most a bound past its acquisition. Tight, unlike
     * {@link #checkBypass}: it counts from the moment Redis has the other client's try, as the
     * README's bound does, so that reads of the mark counted as heard too early fail it.
     */
    private void checkMarkedBypass(Client client) {
        String mark = model.peekMark();
        if (mark == null || mark.equals(client.id)) {
            markedBypass.remove(client);
            return;
        }
        long[] counted = markedBypass.computeIfAbsent(client, c -> new long[] {model.markEpoch(), 0});
        if (counted[0] != model.markEpoch()) {
            // Another value of the mark than the one counted: a read of the mark may have found
            // it gone in between, and the holder's bound counts from this one.
            counted[0] = model.markEpoch();
            counted[1] = 0;
        }
        long count = ++counted[1];
        if (count > MARKED_BYPASS_BOUND) {
            fail(client.id + " handed off " + count + " times while the mark named " + mark + "; bound " + MARKED_BYPASS_BOUND);
        }
    }

    /** Redis answered a try: a new hold's token is checked as Redis grants it. */
    private LockModel.Acquired granted(String field, LockModel.Acquired answer) {
        if (answer.status() == 1 && answer.countOrWait() == 1) {
            newHold(field, answer.token());
        }
        return answer;
    }

    /**
     * A new hold began, in Redis or by a hand-off: its token must exceed every earlier hold's, but
     * for a hand-off of a force-unlocked hold before its client heard of it (a documented limit).
     */
    private void newHold(String holder, long token) {
        if (token <= exemptUpTo) {
            return;
        }
        if (token <= maxToken) {
            fail(holder + " got token " + token + ", not above " + maxToken);
        }
        maxToken = token;
    }

    /** Redis answered a cohort's try: a new Redis hold's hand-offs count afresh. */
    private LockModel.Acquired cohortGranted(Client client, String field, LockModel.Acquired answer) {
        if (answer.status() == 1 && answer.countOrWait() == 1) {
            markedBypass.remove(client);
        }
        return granted(field, answer);
    }

    private void granted(Owner owner) {
        bypass.remove(owner.client);
    }

    @Override
    protected void checkLeftNothing() {
        for (Client client : clients) {
            if (!client.closed && client.cohorts.size() != 0) {
                fail(client.id + " kept a cohort after every owner left: " + client.cohorts);
            }
            if (!client.closed && client.holds.size() != 0) {
                fail(client.id + " kept a hold after every owner left");
            }
        }
        boolean anyClosed = clients.stream().anyMatch(client -> client.closed);
        if (!anyClosed && model.locked()) {
            fail("the lock is held after every owner left");
        }
        if (!anyClosed && (model.mark() != null || model.turn() != null)) {
            fail("a mark or a turn is left after every owner left");
        }
    }

    @Override
    protected String describeOwners() {
        StringBuilder out = new StringBuilder();
        owners.forEach(owner -> out.append("\n    ").append(owner).append(' ').append(owner.state));
        return out.toString();
    }

    // ---- clients -------------------------------------------------------------------------------

    /** One client: its cohorts and holds, its command connection (in order), its subscription. */
    private final class Client {
        final String id;
        final Cohorts cohorts = new Cohorts(new LocalHandOff(MAX_HAND_OFFS, MAX_TIME));
        final HoldRegistry holds = new HoldRegistry(timer, clock);
        final ArrayDeque<Supplier<Runnable>> commands = new ArrayDeque<>();
        final ArrayDeque<Runnable> answers = new ArrayDeque<>();
        final ArrayDeque<String> messages = new ArrayDeque<>();
        final List<CohortRedis.Notices> observers = new ArrayList<>();
        final Map<Long, CohortRedis.HoldReports> renewed = new LinkedHashMap<>();
        final List<ChannelWait> channelWaits = new ArrayList<>();
        final List<CompletableFuture<Wakeups>> subscribing = new ArrayList<>();
        /**
         * The owners whose SUBSCRIBE Redis ran and who have not unsubscribed: the client hears the
         * lock's channel, notices included, only while one is (the real client's linger of 500 ms
         * only makes it hear more).
         */
        final java.util.Set<Long> subscribed = new java.util.HashSet<>();
        long channelSequence;
        boolean closed;
        boolean disconnected;
        /** Its connection stalls until then: nothing it sent runs, and nothing comes back. */
        long stalledUntilNanos;

        boolean stalled() {
            return clock.read() - stalledUntilNanos < 0;
        }

        Timeout renewal;

        Client(String id) {
            this.id = id;
            model.subscribe(message -> {
                if (!disconnected && !subscribed.isEmpty()) {
                    messages.add(message);
                }
            });
        }

        void execute() {
            Supplier<Runnable> command = commands.poll();
            Runnable answer = command.get();
            answers.add(answer);
        }

        void answer() {
            answers.poll().run();
        }

        void deliver() {
            String message = messages.poll();
            // A SUBSCRIBE's confirmation is the answer of a command, never lost on its own.
            if (!message.startsWith("!subscribed:") && chance(faults.dropNotice)
                    || message.startsWith("!wait:") && chance(faults.dropWaitNotice)) {
                log("FAULT " + id + " lost message '" + message + "'");
                return;
            }
            if (message.startsWith("!")) {
                List.copyOf(observers).forEach(observer -> observer.notice(message));
            } else {
                channelSequence++;
                List.copyOf(channelWaits).forEach(wait -> wait.done.complete(null));
            }
        }

        void connectionLost() {
            List.copyOf(observers).forEach(CohortRedis.Notices::connectionLost);
        }

        /**
         * As {@code LockClient.close()}: the cohorts close and the holds are lost first, while the
         * connections are still open (what a woken waiter sends then still runs); the connections
         * close a step later, failing every wait.
         */
        void close() {
            closed = true;
            cohorts.close();
            renewed.clear();
            holds.close();
            ready.add(() -> {
                log(id + " disconnected");
                disconnected = true;
                messages.clear();
                List.copyOf(channelWaits).forEach(wait -> wait.done.completeExceptionally(LockExceptions.closedWhileWaiting()));
                List.copyOf(subscribing).forEach(pending -> pending.completeExceptionally(LockExceptions.closedWhileWaiting()));
            });
        }

        /**
         * A try: refused now and then, or, when it found the lock held (it changed nothing but the
         * mark), run with its answer lost.
         */
        CompletableFuture<LockModel.Acquired> write(String what, Supplier<LockModel.Acquired> atRedis) {
            return send(what, () -> {
                LockModel.Acquired answer = atRedis.get();
                if (answer.status() == 0 && chance(faults.loseBusyAnswer)) {
                    log("FAULT " + id + " " + what + ": the busy answer is lost");
                    throw new LostAnswer();
                }
                return answer;
            }, faults.refuseWrite, false);
        }

        /**
         * A release: never refused here, since the real client settles a release that failed
         * before the owner's next call ({@code UnsettledCalls}, tested on its own).
         */
        <T> CompletableFuture<T> settled(String what, Supplier<T> atRedis) {
            return send(what, atRedis, 0, false);
        }

        /** A command that changes nothing (or the same twice): its answer is lost now and then. */
        <T> CompletableFuture<T> read(String what, Supplier<T> atRedis) {
            return send(what, atRedis, faults.loseReadAnswer, true);
        }

        private <T> CompletableFuture<T> send(String what, Supplier<T> atRedis, double failure, boolean runsAnyway) {
            CompletableFuture<T> reply = new CompletableFuture<>();
            if (disconnected) {
                reply.completeExceptionally(LockExceptions.clientClosed());
                return reply;
            }
            commands.add(() -> {
                boolean fails = chance(failure);
                if (fails && !runsAnyway) {
                    log("FAULT " + id + " " + what + " refused");
                    return () -> reply.completeExceptionally(LockExceptions.unreachable(LOCK, new RuntimeException("simulated")));
                }
                T result;
                try {
                    result = atRedis.get();
                } catch (LostAnswer lost) {
                    return () -> reply.completeExceptionally(LockExceptions.timedOut(LOCK, COMMAND, null));
                }
                log(id + " " + what + " ran: " + result);
                if (fails) {
                    log("FAULT " + id + " " + what + ": answer lost");
                    return () -> reply.completeExceptionally(LockExceptions.timedOut(LOCK, COMMAND, null));
                }
                return () -> reply.complete(result);
            });
            return reply;
        }

        void scheduleRenewal() {
            if (renewal == null && !closed) {
                renewal = timer.newTimeout(timeout -> renew(), LEASE.toNanos() / 3, TimeUnit.NANOSECONDS);
            }
        }

        private void renew() {
            renewal = null;
            if (renewed.isEmpty() || closed) {
                return;
            }
            renewed.forEach((self, reports) -> {
                long sentAt = clock.read();
                read("renew " + self, () -> model.renew(id + ":" + self, LEASE.toMillis())).whenComplete((held, failure) -> {
                    if (renewed.get(self) != reports) {
                        return;
                    }
                    if (failure != null) {
                        reports.failed();
                    } else if (held) {
                        reports.renewed(sentAt, sentAt + LEASE.toNanos());
                    } else {
                        renewed.remove(self);
                        reports.lost();
                    }
                });
            });
            scheduleRenewal();
        }

        /** The Redis side of one cohort of this client. */
        Cohorts.RedisSides sides() {
            return (self, tokenBlock) -> new Side(this, self, tokenBlock);
        }
    }

    /** A cohort's Redis side over the model, through its client's connection. */
    private final class Side implements CohortRedis {
        private final Client client;
        private final long self;
        private final String field;
        private final int tokenBlock;

        Side(Client client, long self, int tokenBlock) {
            this.client = client;
            this.self = self;
            this.field = client.id + ":" + self;
            this.tokenBlock = tokenBlock;
        }

        @Override
        public String lockName() {
            return LOCK;
        }

        @Override
        public String kind() {
            return "plain";
        }

        @Override
        public String client() {
            return client.id;
        }

        @Override
        public Ticker ticker() {
            return clock;
        }

        @Override
        public Timer timer() {
            return timer;
        }

        @Override
        public Duration commandTimeout() {
            return COMMAND;
        }

        @Override
        public CompletableFuture<TryResult> tryCohortHold(LeaseTerm lease) {
            long sentAt = clock.read();
            return client.write("try for cohort " + self, () -> cohortGranted(client, field, model.acquire(field, lease.millis(), "fresh", true, tokenBlock)))
                    .thenApply(answer -> result(answer, sentAt, lease, null));
        }

        @Override
        public CompletableFuture<TryResult> tryOwnHold(long owner, LeaseTerm lease, long heldToken) {
            long sentAt = clock.read();
            String ownField = client.id + ":" + owner;
            return client.write("try of owner " + owner, () -> granted(ownField, model.acquire(ownField, lease.millis(),
                            heldToken == 0 ? "" : Long.toString(heldToken), !lease.renewed(), 1)))
                    .thenApply(answer -> result(answer, sentAt, lease, ownField));
        }

        private TryResult result(LockModel.Acquired answer, long sentAt, LeaseTerm lease, String ownField) {
            if (answer.status() == 0) {
                return TryResult.busy(answer.countOrWait());
            }
            if (answer.status() < 0) {
                return TryResult.goneHold();
            }
            long until = sentAt + TimeUnit.MILLISECONDS.toNanos(lease.millis());
            return TryResult.acquired(new TryResult.Grant() {
                @Override
                public long fencingToken() {
                    return answer.token();
                }

                @Override
                public long confirmedUntilNanos() {
                    return until;
                }

                @Override
                public boolean anotherClientWaits() {
                    return answer.othersWait();
                }

                @Override
                public void start(Hold hold) {
                    // An owner's own hold: nothing renews it; one given up for lost is ended in
                    // Redis if it may still be there, as HoldCalls does.
                    hold.onLoss((lost, mayRemainInRedis) -> {
                        if (mayRemainInRedis && ownField != null) {
                            client.settled("end of own hold " + answer.token(), () -> model.release(ownField, "end",
                                    answer.token(), false, 0, 0));
                        }
                    });
                }
            });
        }

        @Override
        public CompletableFuture<Void> releaseOwnHold(long owner) {
            return client.settled("release of owner " + owner, () -> model.release(client.id + ":" + owner, "release", 0, false, 0, 0))
                    .thenApply(left -> {
                        if (left == null) {
                            throw LockExceptions.notHeld(LOCK, owner);
                        }
                        return null;
                    });
        }

        @Override
        public CompletableFuture<Void> releaseCohortHold(boolean requeue) {
            client.renewed.remove(self);
            return client.settled((requeue ? "requeue" : "release") + " of cohort " + self, () -> model.release(field,
                    requeue ? "requeue" : "release", 0, true, TURN.toMillis(), LEASE.toMillis())).thenApply(left -> {
                        if (left == null) {
                            throw LockExceptions.notHeld(LOCK, self);
                        }
                        return null;
                    });
        }

        @Override
        public void endCohortHold(long token) {
            client.settled("end of cohort hold " + token, () -> model.release(field, "end", token, true, TURN.toMillis(), LEASE.toMillis()));
        }

        @Override
        public CompletableFuture<?> unmark() {
            return client.read("unmark", () -> model.unmark(client.id));
        }

        @Override
        public CompletableFuture<String> readMark() {
            return client.read("read mark", model::mark);
        }

        @Override
        public CompletableFuture<Boolean> holdsCohortHold(long token) {
            return client.read("check cohort hold " + token, () -> Long.toString(token).equals(model.token(field)));
        }

        @Override
        public void renew(HoldReports reports) {
            client.renewed.put(self, reports);
            client.scheduleRenewal();
        }

        @Override
        public void stopRenewing() {
            client.renewed.remove(self);
        }

        @Override
        public Runnable observe(Notices notices) {
            client.observers.add(notices);
            return () -> client.observers.remove(notices);
        }

        @Override
        public void handedOff(long from, long to, long token) {
            log(client.id + " handed off " + from + " -> " + to + ", token " + token);
            checkBypass(client);
            checkMarkedBypass(client);
            newHold(client.id + "/" + to, token);
        }
    }

    /** A command that ran, whose answer is lost. */
    private static final class LostAnswer extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    /** One wait of an owner on the lock's channel. */
    private static final class ChannelWait {
        final CompletableFuture<Void> done = new CompletableFuture<>();
    }

    /** An owner's wake-ups from the lock's channel, as {@code UnlockSubscriptions} gives them. */
    private final class ChannelWakeups implements Wakeups {
        private final Client client;
        private final long owner;
        private ChannelWait current;

        ChannelWakeups(Client client, long owner) {
            this.client = client;
            this.owner = owner;
        }

        @Override
        public long sequence() {
            return client.channelSequence;
        }

        @Override
        public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
            ChannelWait wait = new ChannelWait();
            current = wait;
            if (client.channelSequence != seenSequence) {
                wait.done.complete(null);
                return wait.done;
            }
            if (client.disconnected) {
                wait.done.completeExceptionally(LockExceptions.closedWhileWaiting());
                return wait.done;
            }
            client.channelWaits.add(wait);
            Timeout bound = timer.newTimeout(timeout -> wait.done.complete(null), Math.max(1, timeoutNanos), TimeUnit.NANOSECONDS);
            wait.done.whenComplete((ok, failure) -> {
                client.channelWaits.remove(wait);
                bound.cancel();
            });
            return wait.done;
        }

        @Override
        public void interrupt() {
            if (current != null) {
                current.done.complete(null);
            }
        }

        @Override
        public void handOn() {
        }

        @Override
        public void close() {
            interrupt();
            client.subscribed.remove(owner);
        }
    }

    // ---- owners --------------------------------------------------------------------------------

    private enum State { IDLE, TRYING, WAITING, HOLDING, RELEASING, DONE }

    /** One owner: the acquire loop's steps, then a hold, then a release, a few times over. */
    private final class Owner {
        final Client client;
        final long id;
        int attemptsLeft;
        State state = State.IDLE;
        LeaseTerm lease;
        long deadline;
        Wakeups wakeups;
        Hold hold;
        long heldSince;
        long waitingSince;

        final boolean hot;

        Owner(Client client, long id, int attempts, boolean hot) {
            this.client = client;
            this.id = id;
            this.attemptsLeft = attempts;
            this.hot = hot;
        }

        boolean done() {
            return state == State.DONE || state == State.IDLE && (attemptsLeft == 0 || client.closed);
        }

        boolean holds() {
            return state == State.HOLDING && hold.isHeld();
        }

        boolean mayStart() {
            return state == State.IDLE && attemptsLeft > 0 && !client.closed;
        }

        boolean mayRelease() {
            return state == State.HOLDING && (hot && instantHotHolds || clock.read() - heldSince > 0);
        }

        void start() {
            attemptsLeft--;
            lease = !hot && random.nextInt(5) == 0 ? new LeaseTerm(100 + random.nextInt(300), false) : LeaseTerm.watchdog(LEASE);
            int kind = hot ? 9 : random.nextInt(10);
            long waitMillis = kind < 2 ? 0 : kind < 8 ? 50 + random.nextInt(1000) : 5_000;
            deadline = clock.read() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
            log(this + " starts: lease " + lease + ", wait " + waitMillis + " ms");
            state = State.TRYING;
            tryOnce();
        }

        private void tryOnce() {
            if (client.closed && state != State.TRYING && state != State.WAITING) {
                return;
            }
            long seen = wakeups == null ? 0 : wakeups.sequence();
            CompletableFuture<TryResult> tried;
            while (true) {
                tried = client.cohorts.of(IDENTITY, client.sides()).tryAcquire(id, lease, 0);
                if (tried != null) {
                    break;
                }
            }
            tried.whenComplete((answer, failure) -> later(() -> afterTry(answer, failure, seen)));
        }

        private void afterTry(TryResult answer, Throwable failure, long seen) {
            if (failure != null) {
                log(this + " failed: " + Failures.unwrap(failure).getMessage());
                leave();
            } else if (answer.acquired()) {
                TryResult.Grant grant = answer.grant();
                Hold admitted = client.holds.granted(IDENTITY, LOCK, id, grant.fencingToken(), grant.confirmedUntilNanos());
                if (admitted.isLost()) {
                    grant.refuse();
                    log(this + " granted a lost hold");
                    leave();
                    return;
                }
                grant.start(admitted);
                closeWakeups();
                if (admitted != hold && !admittedTokens.add(grant.fencingToken())) {
                    fail(this + " began a new hold with token " + grant.fencingToken() + ", which an earlier hold had");
                }
                hold = admitted;
                heldSince = clock.read();
                state = State.HOLDING;
                log(this + " holds, token " + grant.fencingToken());
                granted(this);
            } else if (answer.holdGone()) {
                leave();
            } else if (clock.read() - deadline >= 0) {
                log(this + " gives up");
                leave();
            } else if (wakeups == null) {
                // SUBSCRIBE, confirmed on the subscription's connection after what came before it.
                CompletableFuture<Wakeups> subscribed = new CompletableFuture<>();
                if (client.disconnected) {
                    subscribed.completeExceptionally(LockExceptions.closedWhileWaiting());
                }
                client.subscribing.add(subscribed);
                subscribed.whenComplete((ok, subscribeFailure) -> {
                    client.subscribing.remove(subscribed);
                    if (subscribeFailure != null) {
                        client.subscribed.remove(id);
                    }
                });
                client.commands.add(() -> {
                    if (!subscribed.isDone()) {
                        client.subscribed.add(id);
                    }
                    return () -> client.messages.add("!subscribed:" + id);
                });
                client.observers.add(new CohortRedis.Notices() {
                    @Override
                    public void notice(String message) {
                        if (message.equals("!subscribed:" + id)) {
                            client.observers.remove(this);
                            subscribed.complete(new ChannelWakeups(client, id));
                        }
                    }

                    @Override
                    public void connectionLost() {
                    }
                });
                client.cohorts.wakeups(IDENTITY, client.sides(), subscribed, id).whenComplete((joined, joinFailure) -> later(() -> {
                    if (joinFailure != null || client.closed) {
                        if (joined != null) {
                            joined.close();
                        }
                        leave();
                        return;
                    }
                    wakeups = joined;
                    state = State.WAITING;
                    waitingSince = clock.read();
                    tryOnce();
                }));
            } else {
                state = State.WAITING;
                long bound = Math.min(deadline - clock.read(), answer.waitMillis() < 0 ? Long.MAX_VALUE
                        : Math.max(TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(answer.waitMillis())));
                wakeups.await(seen, bound).whenComplete((ok, waitFailure) -> later(() -> {
                    if (waitFailure != null) {
                        leave();
                    } else {
                        tryOnce();
                    }
                }));
            }
        }

        /** Leaves without the lock, as the acquire loop's giveUp and fail do. */
        private void leave() {
            if (wakeups != null) {
                wakeups.handOn();
            }
            closeWakeups();
            client.cohorts.attemptLeft(IDENTITY, id);
            state = State.IDLE;
        }

        private void closeWakeups() {
            if (wakeups != null) {
                wakeups.close();
                wakeups = null;
            }
        }

        /** isHeldByCurrentThread: the cohort's answer once Redis confirmed it, else Redis's. */
        void query() {
            LocalHold local = client.cohorts.localHold(IDENTITY, id);
            if (local != null) {
                local.confirmed().whenComplete((levels, failure) -> log(this + " holds " + levels + " levels"));
            }
        }

        void release() {
            state = State.RELEASING;
            Hold releasing = hold;
            log(this + " releases token " + releasing.token());
            if (releasing.isLost()) {
                releasing.end();
                state = State.IDLE;
                return;
            }
            CompletableFuture<Void> released = client.cohorts.release(IDENTITY, id);
            if (released == null) {
                released = new Side(client, 0, 1).releaseOwnHold(id);
            }
            released.whenComplete((ok, failure) -> later(() -> {
                if (failure != null && Failures.unwrap(failure) instanceof IllegalMonitorStateException) {
                    releasing.lose("the release found it gone", false);
                }
                if (releasing.isLost()) {
                    releasing.end();
                } else {
                    releasing.leave();
                }
                state = State.IDLE;
            }));
        }

        private void later(Runnable next) {
            ready.add(next);
        }

        @Override
        public String toString() {
            return client.id + "/" + id;
        }
    }
}
