package io.latchkey.internal.cohort;

import io.latchkey.spi.Ticker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of one plain lock as the Lua scripts define it (acquire.lua, release.lua,
 * unmark.lua, force-release.lua, renew.lua), for the simulation of the cohort: the lock hash with
 * its counts, tokens and cohort field, its expiry, the slot's fencing counter, the waiting mark and
 * the turn with theirs, and what the scripts publish. Expiry is Redis's: a key is gone once its
 * time has come, by the {@link Ticker} given. A new hold's token is acquire.lua's hybrid logical
 * clock, max(counter + 1, Redis TIME in microseconds), with TIME read from the server clock given
 * (by default one that runs with the ticker). Counters beyond 2^53, which the script refuses, are
 * not modelled. Call ids and replica acknowledgement are left out:
 * the simulation never loses the answer of a call that changes the lock. Not thread-safe: the
 * simulation runs on one thread. {@code LockModelAgreementTest} holds it against a real Redis.
 */
final class LockModel {

    /** Acquire.lua's answer: {@code granted} with count and token, or the wait bound, or a gone hold. */
    record Acquired(long status, long countOrWait, long token, boolean othersWait) {
    }

    /** An epoch in microseconds for the default server clock: 2025-11-26, as Redis's TIME could read. */
    private static final long SERVER_EPOCH_MICROS = 1_764_132_000_000_000L;

    private final Ticker clock;
    private final LongSupplier serverMicros;
    /** The lock hash: field to value, as acquire.lua writes it ({@code <f>}, {@code <f>:token}, {@code cohort}). */
    private final Map<String, String> hash = new LinkedHashMap<>();
    private long hashExpiresAt;
    private long counter;
    private String mark;
    /** Bumped whenever the mark changes, is deleted or expires: one value of the mark, one epoch. */
    private long markEpoch;
    private long markExpiresAt;
    private String turn;
    private long turnExpiresAt;
    private final List<Consumer<String>> channel = new ArrayList<>();

    /** A model whose server clock (Redis's TIME) runs with {@code clock}, from a fixed epoch. */
    LockModel(Ticker clock) {
        this(clock, () -> SERVER_EPOCH_MICROS + Math.floorDiv(clock.read(), 1_000));
    }

    /**
     * @param clock the clock of expiry
     * @param serverMicros Redis's TIME in microseconds, read when a new hold takes its token
     */
    LockModel(Ticker clock, LongSupplier serverMicros) {
        this.clock = clock;
        this.serverMicros = serverMicros;
    }

    /** @param subscriber told each message the scripts publish, in order */
    void subscribe(Consumer<String> subscriber) {
        channel.add(subscriber);
    }

    private long now() {
        return clock.read();
    }

    private void expire() {
        long now = now();
        if (!hash.isEmpty() && hashExpiresAt != 0 && now - hashExpiresAt >= 0) {
            hash.clear();
        }
        if (mark != null && now - markExpiresAt >= 0) {
            setMark(null);
        }
        if (turn != null && now - turnExpiresAt >= 0) {
            turn = null;
        }
    }

    private long pttl() {
        return hash.isEmpty() ? -2 : hashExpiresAt == 0 ? -1 : Math.max(0, (hashExpiresAt - now()) / 1_000_000);
    }

    private void publish(String message) {
        List.copyOf(channel).forEach(subscriber -> subscriber.accept(message));
    }

    private static String clientOf(String field) {
        int colon = field.indexOf(':');
        return colon < 0 ? field : field.substring(0, colon);
    }

    /**
     * acquire.lua.
     *
     * @param held {@code ""}, {@code "fresh"} or a token
     * @param marking true for a client with local hand-off (KEYS[3..5] given)
     * @param block the token block (ARGV[5]); 1 without marking
     */
    Acquired acquire(String field, long leaseMillis, String held, boolean marking, int block) {
        expire();
        String client = clientOf(field);
        String tokenField = field + ":token";
        String token = null;
        boolean replace = false;
        boolean existed = !hash.isEmpty();
        if (!held.isEmpty() && !held.equals("fresh")) {
            token = hash.get(tokenField);
            if (!held.equals(token)) {
                return new Acquired(-1, 0, 0, false);
            }
        } else if (hash.containsKey(field)) {
            if (held.equals("fresh")) {
                replace = true;
            } else {
                token = hash.get(tokenField);
            }
        } else if (!hash.isEmpty()) {
            long left = pttl();
            if (marking) {
                return waitFor(client, leaseMillis, left);
            }
            return new Acquired(0, left, 0, false);
        } else if (marking && turn != null && !turn.equals(client)) {
            return waitFor(client, leaseMillis, (turnExpiresAt - now()) / 1_000_000);
        }
        boolean newToken = token == null;
        if (newToken) {
            long first = Math.max(counter + 1, serverMicros.getAsLong());
            counter = first + block - 1;
            token = Long.toString(first);
        }
        if (replace) {
            hash.clear();
            existed = false;
        }
        if (newToken) {
            hash.put(tokenField, token);
            if (block > 1) {
                hash.put("cohort", token);
            }
        }
        boolean othersWait = false;
        if (marking && newToken) {
            if (client.equals(turn)) {
                turn = null;
            }
            if (client.equals(mark)) {
                setMark(null);
            } else if (mark != null) {
                publish("!wait:" + mark);
                othersWait = true;
            }
        }
        long count = Long.parseLong(hash.getOrDefault(field, "0")) + 1;
        hash.put(field, Long.toString(count));
        long pttl = existed ? (hashExpiresAt - now()) / 1_000_000 : -1;
        if (pttl < leaseMillis) {
            hashExpiresAt = now() + leaseMillis * 1_000_000;
        }
        return new Acquired(1, count, Long.parseLong(token), othersWait);
    }

    private Acquired waitFor(String client, long leaseMillis, long left) {
        setMark(client);
        markExpiresAt = now() + leaseMillis * 1_000_000;
        publish("!wait:" + client);
        return new Acquired(0, left, 0, false);
    }

    /**
     * release.lua without call ids: {@code release}, {@code requeue} or {@code end}.
     *
     * @return the holds left, or null if the owner held nothing (or the hold to end is gone)
     */
    Long release(String field, String mode, long endToken, boolean marking, long turnMillis, long markMillis) {
        expire();
        String client = clientOf(field);
        if (mode.equals("end")) {
            if (!Long.toString(endToken).equals(hash.get(field + ":token"))) {
                return null;
            }
            delete(client, mode, marking, turnMillis, markMillis);
            return 0L;
        }
        if (!hash.containsKey(field)) {
            return null;
        }
        long left = Long.parseLong(hash.get(field)) - 1;
        if (left > 0) {
            hash.put(field, Long.toString(left));
            return left;
        }
        delete(client, mode, marking, turnMillis, markMillis);
        return 0L;
    }

    private void delete(String client, String mode, boolean marking, long turnMillis, long markMillis) {
        hash.clear();
        if (marking) {
            if (mark != null && !mark.equals(client)) {
                turn = mark;
                turnExpiresAt = now() + turnMillis * 1_000_000;
                setMark(null);
            }
            if (mode.equals("requeue")) {
                setMark(client);
                markExpiresAt = now() + markMillis * 1_000_000;
            }
        }
        publish("");
    }

    /** unmark.lua: @return the keys deleted */
    long unmark(String client) {
        expire();
        long deleted = 0;
        if (client.equals(mark)) {
            setMark(null);
            deleted++;
        }
        if (client.equals(turn)) {
            turn = null;
            deleted++;
        }
        return deleted;
    }

    /** force-release.lua: @return true if the lock existed */
    boolean forceRelease() {
        expire();
        if (hash.isEmpty()) {
            return false;
        }
        String cohort = hash.get("cohort");
        hash.clear();
        publish("");
        if (cohort != null) {
            publish("!force:" + cohort);
        }
        return true;
    }

    /** renew.lua for one hold: @return true if the hold was there and now runs at least the lease */
    boolean renew(String field, long leaseMillis) {
        expire();
        if (!hash.containsKey(field)) {
            return false;
        }
        if (pttl() < leaseMillis) {
            hashExpiresAt = now() + leaseMillis * 1_000_000;
        }
        return true;
    }

    /** @return the slot's fencing counter: every token given so far is at most this; 0 if it has none */
    long counter() {
        return counter;
    }

    /** SET of the counter: a counter set back, as a failover to a replica that missed updates leaves it. */
    void setCounter(long value) {
        counter = value;
    }

    private void setMark(@Nullable String value) {
        if (!Objects.equals(mark, value)) {
            markEpoch++;
        }
        mark = value;
    }

    /** @return which value of the mark stands, for checks: it changes whenever the mark does */
    long markEpoch() {
        return markEpoch;
    }

    /** @return the waiting mark as a GET would find it, without expiring anything: for checks */
    @Nullable String peekMark() {
        return mark != null && clock.read() - markExpiresAt < 0 ? mark : null;
    }

    /** @return GET of the waiting mark */
    String mark() {
        expire();
        return mark;
    }

    /** @return GET of the turn */
    String turn() {
        expire();
        return turn;
    }

    /** @return HGET of the field's token */
    String token(String field) {
        expire();
        return hash.get(field + ":token");
    }

    /** @return HGET of a field */
    String field(String field) {
        expire();
        return hash.get(field);
    }

    /** @return HGETALL of the lock hash */
    Map<String, String> hash() {
        expire();
        return new LinkedHashMap<>(hash);
    }

    /** @return EXISTS of the lock hash */
    boolean locked() {
        expire();
        return !hash.isEmpty();
    }

    /** @return the lock's remaining lease in milliseconds, as PTTL answers */
    long remaining() {
        expire();
        return pttl();
    }

    /** A failover to a replica that had not received the lock hash; the counter had. */
    void loseLock() {
        hash.clear();
    }

    /** Data loss: a restart without persistence, or FLUSHALL. The counter goes too. */
    void flush() {
        hash.clear();
        counter = 0;
        setMark(null);
        turn = null;
    }

    /** @return whether the client named holds a field in the lock */
    boolean heldBy(String field) {
        expire();
        return hash.containsKey(field);
    }

    @Override
    public String toString() {
        expire();
        return "lock " + hash + " ttl " + pttl() + ", counter " + counter + ", mark " + mark + ", turn " + turn
                + (Objects.isNull(turn) ? "" : " for " + (turnExpiresAt - now()) / 1_000_000 + " ms");
    }
}
