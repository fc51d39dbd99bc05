package io.latchkey.internal.lock;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.simulation.SeededSchedule;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.internal.watchdog.LeaseRenewer;
import io.latchkey.spi.AcquireProtocol;
import io.latchkey.spi.Hold;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.HoldScripts;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A deterministic simulation of the fair lock's grant at the release, below Redis: one client's
 * real {@link AcquireAttempt}s, {@link LockHolds}, {@link HoldCalls} (with its {@link GrantTakes}
 * and {@link UnsettledCalls}), {@link UnlockSubscriptions} and {@link HoldRegistry}, over a
 * {@link FairLockModel} of the fair lock's scripts instead of Redis, with a small protocol that
 * does what lock-fair's {@code FairLockProtocol} does around them (a secret per try, the grant's
 * word checked against the proof and entered through {@link HoldCalls#takeGranted} while its
 * bound leaves the margin, abandon with the attempt's last secret). Callers lock with a fixed or watchdog
 * lease and a wait (none, a short or a long one, or for ever), hold a while (or not at all, so
 * that a release goes out behind the take of a grant entered on its message) and unlock, and one
 * owner id is shared by two async callers whose attempts interleave, the case of the four reviews'
 * races. Every asynchronous step is an event the seeded schedule picks: a command reaching Redis
 * (on the client's one connection, in the order sent), its answer reaching the client (in that
 * order too), a message reaching the client's subscription (in the order published), a caller's
 * next step, time passing. Faults: commands lost before Redis runs them, answers lost after it
 * did (the client's command timeout fails them, and the client settles them its own way), answers
 * late, refusals (passing, and for good), messages lost or late, waits cancelled.
 *
 * <p>After every step it checks: no two different owners believe they hold the lock (a caller
 * holding, its hold held and confirmed now); every believed hold is in Redis, its owner's field
 * with its token in a lock hash that has not expired (so a grant not taken counts only while its
 * key lasts). Once every caller is done: every attempt settled, no line of {@link UnsettledCalls}
 * left, no hold believed, and the lock free or expiring, with no hold taken left in it unless
 * Redis refused a call for good. Leases are fixed, or the watchdog's never renewed within a
 * schedule (renewals are the plain lock's and are simulated elsewhere), which lets the take of a
 * grant that ends before the lease wait until due, or for a release to stand for it. Not
 * thread-safe: one thread runs it.
 */
final class FairGrantSimulation extends SeededSchedule {

    static final Duration COMMAND = Duration.ofMillis(50);
    /** fairLockWaitTimeout: short, so that places run out and dead waiters are evicted within a schedule. */
    static final Duration PLACE = Duration.ofMillis(400);
    /** As FairLockProtocol's: what Redis TIME floored to milliseconds, and its comparisons' edge, may take off a deadline. */
    private static final long REDIS_TIME_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** As FairLockProtocol's: the command timeout, at most a quarter of the place. */
    private static final long ENTER_MARGIN_NANOS = Math.min(COMMAND.toNanos(), PLACE.toNanos() / 4);
    private static final long MAX_LEASE_MILLIS = 700;
    private static final String LOCK = "fair-lock";
    private static final String CHANNEL = "fair-lock-channel";
    /** The owner id that two async callers share. */
    private static final long SHARED_OWNER = 9;

    /** What the simulation injects, each with its chance per command, message, attempt or step. */
    record Faults(double loseCommand, double loseAnswer, double lateAnswers, double refuse, double refuseForGood,
                  double dropMessage, double lateMessages, double cancel) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0, 0);
        static final Faults SOME = new Faults(0.005, 0.02, 0.02, 0.005, 0.002, 0.05, 0.03, 0.1);
        static final Faults MANY = new Faults(0.02, 0.06, 0.05, 0.01, 0.005, 0.15, 0.06, 0.2);
    }

    private final Faults faults;
    private final FairLockModel model;
    /** The client's command connection: Redis runs the commands in the order sent. */
    private final ArrayDeque<Runnable> commands = new ArrayDeque<>();
    /** Its answers, in the order Redis ran the commands. */
    private final ArrayDeque<Runnable> answers = new ArrayDeque<>();
    /** The client's pub/sub connection: messages in the order published. */
    private final ArrayDeque<String> messages = new ArrayDeque<>();
    private boolean subscribed;
    /** Redis refused a command for good: a release so refused leaves its hold to its lease. */
    private boolean refusedForGood;
    /** No answer reaches the client before this time: its connection is slow for a while. */
    private long answersLateUntil;
    /** No message reaches the client before this time: its pub/sub connection is slow for a while. */
    private long messagesLateUntil;
    private final LockContext context;
    private final FairProtocol protocol;
    private final LockHolds holds;
    private final List<Caller> callers = new ArrayList<>();
    private int secrets;

    /**
     * @param owners the owner ids with one caller each, besides {@link #SHARED_OWNER} with two
     * @param attempts the attempts of each caller
     */
    FairGrantSimulation(long seed, int owners, int attempts, Faults faults, boolean traced) {
        super(seed, traced, 600, "latchkey.fairsimulation.seed");
        this.faults = faults;
        // Redis TIME: 2023 or so, in nanoseconds, off the client's ticker by a fraction of a millisecond too.
        this.model = new FairLockModel(clock, 1_700_000_000_000_000_000L + random.nextInt(1_000_000), PLACE.toMillis(),
                this::published);
        LockConfig config = LockConfig.builder().address("redis://127.0.0.1:6379").commandTimeout(COMMAND)
                .fairLockWaitTimeout(PLACE).build();
        UnlockSubscriptions subscriptions = new UnlockSubscriptions(SubscriptionCommands.of(channel -> {
            subscribed = true;
            return CompletableFuture.completedFuture(null);
        }, channel -> {
            subscribed = false;
            return CompletableFuture.completedFuture(null);
        }), timer);
        this.context = new LockContext("c", config, new RedisExecutor(noCommands(), COMMAND, "simulated Redis"), subscriptions,
                // Its rounds come every second, after every hold's lease has run out (a hold lives
                // at most MAX_LEASE_MILLIS): the watchdog leases below are never renewed, and their
                // grants' takes may wait (GrantTakes).
                new LeaseRenewer(timer, clock, Duration.ofSeconds(3)), timer, clock, "publish", new UnsettledCalls(timer),
                new HoldRegistry(timer, clock));
        this.protocol = new FairProtocol();
        this.holds = new LockHolds(protocol);
        for (int o = 1; o <= owners; o++) {
            callers.add(new Caller(o, "owner " + o, attempts));
        }
        callers.add(new Caller(SHARED_OWNER, "owner " + SHARED_OWNER + "a", attempts));
        callers.add(new Caller(SHARED_OWNER, "owner " + SHARED_OWNER + "b", attempts));
        callers.forEach(caller -> ready.add(caller::start));
    }

    /** Every command goes through the model; a call that reaches the executor is a bug of the simulation. */
    @SuppressWarnings("unchecked")
    private static RedisClusterAsyncCommands<String, String> noCommands() {
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(FairGrantSimulation.class.getClassLoader(),
                new Class<?>[] {RedisClusterAsyncCommands.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.toString());
                });
    }

    private String field(long owner) {
        return context.field(owner);
    }

    // ---- the network ---------------------------------------------------------------------------

    /** Redis publishes to the client only while its subscription stands. */
    private void published(String message) {
        log(() -> "  published '" + message + "'" + (subscribed ? "" : " (nobody subscribed)"));
        if (subscribed) {
            messages.add(message);
        }
    }

    /**
     * Sends a command on the client's one connection: Redis runs it in turn, and its answer comes
     * back in turn, unless a fault loses either; the client's command timeout fails the call if no
     * answer came in time, as Lettuce's does (the command may still run after it).
     */
    private <T> CompletableFuture<T> send(String what, Supplier<T> atRedis) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        Timeout timeout = timer.newTimeout(t -> {
            if (reply.completeExceptionally(LockExceptions.translate(LOCK, COMMAND,
                    new RedisCommandTimeoutException("Command timed out after " + COMMAND)))) {
                log(() -> what + " timed out");
            }
        }, COMMAND.toNanos(), TimeUnit.NANOSECONDS);
        commands.add(() -> {
            if (chance(faults.loseCommand)) {
                log(() -> "FAULT " + what + " lost on its way to Redis");
                return;
            }
            boolean passing = chance(faults.refuse);
            if (passing || chance(faults.refuseForGood)) {
                refusedForGood |= !passing;
                String error = passing ? "BUSY Redis is busy running a script" : "NOPERM this user has no permissions";
                log(() -> "FAULT " + what + " refused: " + error);
                answers.add(() -> {
                    timeout.cancel();
                    reply.completeExceptionally(LockExceptions.translate(LOCK, COMMAND, new RedisCommandExecutionException(error)));
                });
                return;
            }
            T result = atRedis.get();
            log(() -> what + " ran: " + result);
            if (chance(faults.loseAnswer)) {
                log(() -> "FAULT " + what + ": its answer is lost");
                return;
            }
            answers.add(() -> {
                timeout.cancel();
                if (!reply.complete(result)) {
                    log(() -> what + ": its answer came after its timeout");
                }
            });
        });
        return reply;
    }

    private void deliverMessage() {
        String message = messages.poll();
        if (chance(faults.dropMessage)) {
            log(() -> "FAULT message '" + message + "' lost");
            return;
        }
        context.subscriptions().message(CHANNEL, message);
    }

    // ---- the scheduler -------------------------------------------------------------------------

    @Override
    protected boolean settled() {
        return commands.isEmpty() && answers.isEmpty() && messages.isEmpty() && callers.stream().allMatch(Caller::done);
    }

    @Override
    protected void offerChoices() {
        if (!commands.isEmpty()) {
            choose(() -> commands.poll().run(), () -> "Redis runs a command");
        }
        if (!answers.isEmpty() && clock.read() - answersLateUntil >= 0) {
            choose(() -> answers.poll().run(), () -> "an answer reaches the client");
        }
        if (!messages.isEmpty() && clock.read() - messagesLateUntil >= 0) {
            choose(this::deliverMessage, () -> "message '" + messages.peek() + "' reaches the client");
        }
    }

    @Override
    protected void injectFaults() {
        if (chance(faults.lateAnswers)) {
            long millis = 1 + random.nextInt(120);
            answersLateUntil = clock.read() + TimeUnit.MILLISECONDS.toNanos(millis);
            log(() -> "FAULT answers are late by " + millis + " ms");
        }
        if (chance(faults.lateMessages)) {
            long millis = 1 + random.nextInt(200);
            messagesLateUntil = clock.read() + TimeUnit.MILLISECONDS.toNanos(millis);
            log(() -> "FAULT messages are late by " + millis + " ms");
        }
    }

    // ---- invariants ----------------------------------------------------------------------------

    @Override
    protected void check() {
        long now = clock.read();
        Caller believer = null;
        for (Caller caller : callers) {
            if (!caller.believes(now)) {
                continue;
            }
            if (believer != null && believer.owner != caller.owner) {
                fail("two owners believe they hold the lock: " + believer + " and " + caller);
            }
            believer = believer == null ? caller : believer;
            String token = model.token(field(caller.owner));
            if (!Long.toString(caller.hold.token()).equals(token)) {
                fail(caller + " believes it holds, but Redis has " + (token == null ? "no hold of its owner" : "token " + token));
            }
        }
    }

    @Override
    protected void checkLeftNothing() {
        if (context.unsettled().pending() != 0) {
            fail(context.unsettled().pending() + " line(s) of unsettled calls kept after every caller is done");
        }
        if (!context.holds().held().isEmpty()) {
            fail("holds believed after every caller is done: " + context.holds().held());
        }
        long ttl = model.lockTtlMillis();
        if (ttl == -1 || ttl > Math.max(MAX_LEASE_MILLIS, PLACE.toMillis())) {
            fail("the lock is left held after every caller is done, its TTL " + ttl + " ms");
        }
        // Every release, undo and end was answered (or settled): only a grant never taken (count
        // 0, until its place runs out) may be left, unless Redis refused a call for good.
        for (Caller caller : callers) {
            String count = model.count(field(caller.owner));
            if (!refusedForGood && count != null && !count.equals("0")) {
                fail("a hold of " + count + " of " + caller + " is left in Redis after every call was settled");
            }
        }
    }

    @Override
    protected String describeState() {
        return "model: " + model + "\n  unsettled lines: " + context.unsettled().pending() + "\n  callers: " + callers;
    }

    @Override
    protected String describeOwners() {
        StringBuilder out = new StringBuilder();
        callers.forEach(caller -> out.append("\n    ").append(caller).append(' ').append(caller.state)
                .append(caller.attemptSettled ? "" : ", attempt unsettled"));
        return out.toString() + "\n  commands " + commands.size() + ", answers " + answers.size() + ", messages " + messages.size()
                + ", timer " + timer.pending() + "\n  model: " + model;
    }

    // ---- the client ----------------------------------------------------------------------------

    /** The fair lock's scripts over the model, through the client's connection, as FairLockProtocol sends them. */
    private final class FairScripts implements HoldScripts {

        @Override
        public CompletableFuture<List<Object>> acquire(String field, LeaseTerm lease, String call, String held) {
            // FairLockProtocol.secretFor: a new secret for a try that may queue, none for a take.
            String secret = held.isEmpty() ? "s" + ++secrets : "";
            String what = (held.isEmpty() ? "try " : "take of " + held + " ") + call + " of " + field;
            return send(what, () -> model.acquire(field, lease.millis(), call, held, secret));
        }

        @Override
        public CompletableFuture<Long> release(String field, String call, String mode) {
            return send(mode + " " + call + " of " + field, () -> model.release(field, call, mode, null));
        }

        @Override
        public CompletableFuture<Long> end(String field, String call, long token) {
            return send("end of " + token + " of " + field, () -> model.release(field, call, "end", Long.toString(token)));
        }
    }

    /**
     * What lock-fair's FairLockProtocol does around lock-core's machinery, which lock-core's tests
     * cannot reach: its grantedByWord (the proof, the bound, the margin) and abandon (leaving the
     * line, with the attempt's last secret), the rest passed to {@link HoldCalls}.
     */
    private final class FairProtocol implements AcquireProtocol {
        private final HoldCalls calls = new HoldCalls(LOCK, LOCK, context, new FairScripts());

        @Override
        public String name() {
            return LOCK;
        }

        @Override
        public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
            return calls.tryAcquire(owner, lease, heldToken);
        }

        @Override
        public CompletableFuture<Void> release(long owner) {
            return calls.release(owner);
        }

        @Override
        public CompletableFuture<Void> abandon(long owner) {
            return abandon(owner, null);
        }

        @Override
        public CompletableFuture<Void> abandon(long owner, @Nullable String queuedSecret) {
            String field = field(owner);
            String secret = queuedSecret == null ? "" : queuedSecret;
            calls.leftTheQueue(owner);
            Supplier<CompletableFuture<Long>> leave = () -> send("abandon of " + field + " with '" + secret + "'",
                    () -> model.abandon(field, secret));
            return context.sendOrSettleLater(LOCK, owner, "leaving the queue", leave, leave::get).thenApply(removed -> null);
        }

        @Override
        public @Nullable TryResult grantedByWord(long owner, LeaseTerm lease, String word, long queuedSentNanos,
                                                 String queuedSecret) {
            int space = word.indexOf(' ');
            if (space < 0) {
                return null;
            }
            String token = word.substring(0, space);
            if (!FairLockModel.proof(token, queuedSecret).equals(word.substring(space + 1))) {
                log(() -> "  word '" + word + "' does not prove secret " + queuedSecret + ": a try instead");
                return null;
            }
            long untilNanos = queuedSentNanos + PLACE.toNanos() - REDIS_TIME_FLOOR_NANOS;
            if (untilNanos - clock.read() < ENTER_MARGIN_NANOS) {
                log(() -> "  word for token " + token + " comes too late to enter on: a try instead");
                return null;
            }
            TryResult taken = calls.takeGranted(owner, lease, Long.parseLong(token), queuedSecret, untilNanos);
            log(() -> "  owner " + owner + (taken == null ? " may not enter on" : " enters on") + " the grant of token " + token);
            return taken;
        }

        @Override
        public CompletableFuture<Wakeups> wakeups(long owner) {
            return context.wakeups(CHANNEL, field(owner));
        }

        @Override
        public @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
            return context.wakeupsIfSubscribed(CHANNEL, field(owner));
        }

        @Override
        public HoldRegistry holdRegistry() {
            return context.holds();
        }

        @Override
        public Object identity() {
            return context.lockId(LOCK);
        }

        @Override
        public String kind() {
            return "fair";
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
    }

    // ---- callers -------------------------------------------------------------------------------

    private enum State { IDLE, WAITING, HOLDING, RELEASING }

    /** One caller of the lock: attempts one after another, each holding a while and unlocking if it got the lock. */
    private final class Caller {
        final long owner;
        final String name;
        int attemptsLeft;
        State state = State.IDLE;
        boolean attemptSettled = true;
        boolean startDue = true;
        @Nullable Hold hold;

        Caller(long owner, String name, int attempts) {
            this.owner = owner;
            this.name = name;
            this.attemptsLeft = attempts;
        }

        boolean done() {
            return state == State.IDLE && attemptSettled && !startDue && attemptsLeft == 0;
        }

        /** @return true if the caller holds and its hold is held within a lease the client takes as confirmed */
        boolean believes(long now) {
            Hold current = hold;
            return state == State.HOLDING && current != null && current.isHeld() && current.confirmedAt(now);
        }

        void start() {
            startDue = false;
            attemptsLeft--;
            state = State.WAITING;
            attemptSettled = false;
            Duration leaseTime = Duration.ofMillis(150 + random.nextInt((int) MAX_LEASE_MILLIS - 150));
            // Half of them a watchdog lease, which the watchdog never gets to renew here: a grant
            // that ends before it has its take wait until due, or for a release to stand for it.
            LeaseTerm lease = random.nextBoolean() ? LeaseTerm.fixed(leaseTime) : LeaseTerm.watchdog(leaseTime);
            int kind = random.nextInt(10);
            long waitNanos = kind < 2 ? 0 : kind < 7 ? TimeUnit.MILLISECONDS.toNanos(20 + random.nextInt(800))
                    : kind < 9 ? TimeUnit.SECONDS.toNanos(3) : AcquireAttempt.forever();
            log(() -> this + " locks: lease " + lease.millis() + " ms, wait "
                    + (waitNanos == AcquireAttempt.forever() ? "for ever" : waitNanos / 1_000_000 + " ms"));
            AcquireAttempt attempt = AcquireAttempt.start(protocol, holds, owner, lease, waitNanos);
            attempt.result().whenComplete((held, failure) -> {
                if (held != null) {
                    hold = held;
                    state = State.HOLDING;
                    // Now and then past the lease, which is then lost, and ended in Redis; as often
                    // at once, as a short critical section does, mostly before the take of a grant
                    // entered on its message is answered (the release then goes behind the take).
                    int how = random.nextInt(8);
                    if (how < 2) {
                        log(() -> this + " holds token " + held.token() + " and unlocks at once");
                        ready.add(this::unlock);
                    } else {
                        long holdMillis = how == 2 ? lease.millis() + random.nextInt(200) : random.nextInt(300);
                        log(() -> this + " holds token " + held.token() + " for " + holdMillis + " ms");
                        timer.newTimeout(t -> ready.add(this::unlock), holdMillis, TimeUnit.MILLISECONDS);
                    }
                } else {
                    log(() -> this + (failure == null ? " did not get the lock" : " failed: " + Failures.describe(Failures.unwrap(failure))));
                    state = State.IDLE;
                    next();
                }
            });
            attempt.settled().whenComplete((ok, failure) -> {
                attemptSettled = true;
                next();
            });
            if (waitNanos != 0 && chance(faults.cancel)) {
                long cancelAfter = random.nextInt(600);
                timer.newTimeout(t -> ready.add(() -> {
                    if (!attempt.result().isDone()) {
                        log(() -> this + " cancels its attempt");
                        attempt.cancel();
                    }
                }), cancelAfter, TimeUnit.MILLISECONDS);
            }
        }

        /** Unlocks by its handle, as HoldHandle does: its own hold, not whatever the owner id holds now. */
        void unlock() {
            Hold releasing = Objects.requireNonNull(hold);
            state = State.RELEASING;
            log(() -> this + " unlocks token " + releasing.token());
            holds.close(releasing).whenComplete((ok, failure) -> {
                log(() -> this + (failure == null ? " unlocked" : " unlock failed: " + Failures.describe(Failures.unwrap(failure))));
                state = State.IDLE;
                hold = null;
                next();
            });
        }

        /** Starts the next attempt a little later, once this one is over. */
        private void next() {
            if (state != State.IDLE || !attemptSettled || startDue || attemptsLeft == 0) {
                return;
            }
            startDue = true;
            timer.newTimeout(t -> ready.add(this::start), random.nextInt(60), TimeUnit.MILLISECONDS);
        }

        @Override
        public String toString() {
            return name + (hold == null ? "" : " (hold " + hold + ")");
        }
    }
}
