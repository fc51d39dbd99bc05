package io.latchkey.internal.lock;

import io.latchkey.spi.Ticker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The fair lock's keys in Redis and its scripts (lock-fair's {@code acquire.lua},
 * {@code release.lua} and {@code abandon.lua}), in Java, for {@link FairGrantSimulation}: the lock
 * hash (count, {@code :token}, {@code :call}, {@code :grant} per owner field), the queue, the
 * timeouts (place deadlines in milliseconds of Redis time), the secrets, the fencing counter, the
 * keys' expiry, and what the scripts publish on the lock's channel. Each method is one script run,
 * atomic as in Redis, at the simulation's clock; the line numbers of the Lua are followed branch
 * for branch for every field the client relies on.
 *
 * <p>Simplified, none of which the client can tell apart: Redis TIME is the simulation's clock
 * plus a fixed offset (microseconds, and milliseconds floored from them): Redis's clock runs at the
 * client's rate, and the client's bounds assume no more than that and that Redis runs a call no
 * earlier than it was sent; the offset, not a whole millisecond, moves the floors' edges; a key
 * expires when Redis time passes its PEXPIRE moment, looked at lazily at each run and query; the
 * queue, timeouts and secrets share one expiry (the scripts set it to the same moment whenever a
 * try that sends a secret queues, and every try here sends one); the counter never runs out and
 * no script meets an ACL refusal, so the error branches are left out; the proof is the real SHA-1
 * of {@code <token>:<secret>}. Not thread-safe: the simulation's one thread runs it.
 * {@code FairLockModelAgreementTest} (in lock-tests) holds it against a real Redis.
 */
final class FairLockModel {

    private static final int MAX_EVICTIONS = 100;

    private final Ticker clock;
    /** Redis TIME minus the client's ticker, in nanoseconds. */
    private final long redisOffsetNanos;
    private final long placeMillis;
    private final Consumer<String> publish;
    /** The lock hash; empty when the key does not exist. */
    private final Map<String, String> lock = new LinkedHashMap<>();
    /** The lock key's expiry, in milliseconds of Redis time; -1 for none. */
    private long lockExpiresAt = -1;
    /** The queue list, the first in line first. */
    private final List<String> queue = new ArrayList<>();
    private final Map<String, Long> timeouts = new HashMap<>();
    private final Map<String, String> secrets = new HashMap<>();
    /** When the queue, the timeouts and the secrets expire, in milliseconds of Redis time; -1 for none. */
    private long lineExpiresAt = -1;
    private long counter;

    /**
     * @param clock the client's ticker, which Redis's clock follows
     * @param redisOffsetNanos Redis TIME minus the ticker, in nanoseconds
     * @param placeMillis fairLockWaitTimeout, as the acquire script's ARGV[3]
     * @param publish what a script publishes on the lock's channel
     */
    FairLockModel(Ticker clock, long redisOffsetNanos, long placeMillis, Consumer<String> publish) {
        this.clock = clock;
        this.redisOffsetNanos = redisOffsetNanos;
        this.placeMillis = placeMillis;
        this.publish = publish;
    }

    private long nowMicros() {
        return (clock.read() + redisOffsetNanos) / 1_000;
    }

    private long nowMillis() {
        return Math.floorDiv(clock.read() + redisOffsetNanos, 1_000_000L);
    }

    /** Redis drops a key once its time is past the expiry ({@code now > when}). */
    private void expire() {
        long now = nowMillis();
        if (lockExpiresAt >= 0 && now > lockExpiresAt) {
            lock.clear();
            lockExpiresAt = -1;
        }
        if (lineExpiresAt >= 0 && now > lineExpiresAt) {
            queue.clear();
            timeouts.clear();
            secrets.clear();
            lineExpiresAt = -1;
        }
    }

    private void deleteLock() {
        lock.clear();
        lockExpiresAt = -1;
    }

    private long pttl() {
        if (lock.isEmpty()) {
            return -2;
        }
        return lockExpiresAt < 0 ? -1 : lockExpiresAt - nowMillis();
    }

    private void pexpireLock(long millis) {
        lockExpiresAt = nowMillis() + millis;
    }

    private String nextToken() {
        long token = Math.max(counter + 1, nowMicros());
        counter = token;
        return Long.toString(token);
    }

    /**
     * acquire.lua.
     *
     * @return {1, count, token}, {-1, 0} or {0, wait, secret}, as the script answers
     */
    List<Object> acquire(String caller, long leaseMillis, String call, String held, String secret) {
        expire();
        String tokenField = caller + ":token";
        if (!held.isEmpty()) {
            if (!held.equals(lock.get(tokenField))) {
                return List.of(-1L, 0L);
            }
            if (call.equals(lock.get(caller + ":call"))) {
                return List.of(1L, Long.parseLong(lock.get(caller)), Long.parseLong(held));
            }
            return grant(caller, leaseMillis, call);
        }
        if (lock.containsKey(caller) || (lock.isEmpty() && queue.isEmpty())) {
            return grant(caller, leaseMillis, call);
        }
        long now = nowMillis();
        int evicted = 0;
        String head = queue.isEmpty() ? null : queue.get(0);
        while (head != null && !head.equals(caller) && evicted < MAX_EVICTIONS) {
            Long deadline = timeouts.get(head);
            if (deadline != null && deadline > now) {
                break;
            }
            queue.remove(0);
            timeouts.remove(head);
            secrets.remove(head);
            evicted++;
            head = queue.isEmpty() ? null : queue.get(0);
        }
        if (lock.isEmpty() && (head == null || head.equals(caller))) {
            List<Object> granted = grant(caller, leaseMillis, call);
            if (head != null) {
                queue.remove(0);
                timeouts.remove(caller);
                secrets.remove(caller);
                if (!queue.isEmpty()) {
                    publish.accept(queue.get(0));
                }
            }
            return granted;
        }
        if (evicted > 0 && head != null && !head.equals(caller)) {
            publish.accept(head);
        }
        if (timeouts.put(caller, now + placeMillis) == null) {
            queue.add(caller);
        }
        if (!secret.isEmpty()) {
            secrets.put(caller, secret);
        } else {
            secrets.remove(caller);
        }
        head = head == null ? caller : head;
        long latest = timeouts.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        lineExpiresAt = now + Math.max(1, latest - now);
        long wait = Math.max(1, placeMillis / 2);
        if (head.equals(caller)) {
            long holderLease = pttl();
            if (holderLease > 0 && holderLease < wait) {
                wait = holderLease;
            }
        } else {
            Long deadline = timeouts.get(head);
            long left = deadline == null ? 0 : deadline - now;
            wait = Math.max(1, Math.min(wait, left));
        }
        return List.of(0L, wait, secret);
    }

    /** acquire.lua's grant(): one more hold for the caller, a granted hold taken too. */
    private List<Object> grant(String caller, long leaseMillis, String call) {
        String tokenField = caller + ":token";
        String token = lock.get(tokenField);
        boolean newToken = token == null;
        if (newToken) {
            token = nextToken();
        }
        lock.put(caller + ":call", call);
        if (newToken) {
            lock.put(tokenField, token);
        }
        long count = Long.parseLong(lock.getOrDefault(caller, "0")) + 1;
        lock.put(caller, Long.toString(count));
        if (count == 1 || pttl() < leaseMillis) {
            pexpireLock(leaseMillis);
        }
        if (count == 1 && !newToken && !queue.isEmpty()) {
            String next = queue.get(0);
            if (timeouts.getOrDefault(next, 0L) - nowMillis() > leaseMillis) {
                publish.accept(next);
            }
        }
        return List.of(1L, count, Long.parseLong(token));
    }

    /**
     * release.lua.
     *
     * @param mode {@code release}, {@code undo} or {@code end}
     * @param endToken with {@code end}, the token of the hold to end
     * @return the holds left, or null for nothing to do
     */
    @Nullable Long release(String owner, String call, String mode, @Nullable String endToken) {
        expire();
        String marker = owner + ":call";
        String count = lock.get(owner);
        long left;
        if (mode.equals("end")) {
            if (!String.valueOf(lock.get(owner + ":token")).equals(endToken)) {
                return null;
            }
            left = 0;
        } else {
            String last = lock.get(marker);
            if (mode.equals("undo")) {
                if (!call.equals(last)) {
                    return null;
                }
            } else if (call.equals(last)) {
                return count == null ? null : Long.parseLong(count);
            }
            if (count == null || (count.equals("0") && !mode.equals("undo"))) {
                return null;
            }
            left = Long.parseLong(count) - 1;
        }
        if (left > 0) {
            lock.put(owner, Long.toString(left));
            if (mode.equals("undo")) {
                lock.remove(marker);
            } else {
                lock.put(marker, call);
            }
            return left;
        }
        // The last hold: the first live waiter, after the dead ones before it.
        String head = queue.isEmpty() ? null : queue.get(0);
        List<String> dead = new ArrayList<>();
        long deadline = 0;
        long now = 0;
        if (head != null) {
            now = nowMillis();
            deadline = timeouts.getOrDefault(head, 0L);
            while (deadline <= now && dead.size() < MAX_EVICTIONS) {
                dead.add(head);
                head = dead.size() < queue.size() ? queue.get(dead.size()) : null;
                if (head == null) {
                    break;
                }
                deadline = timeouts.getOrDefault(head, 0L);
            }
        }
        String token = null;
        String secret = null;
        if (head != null && deadline > now) {
            token = nextToken();
            secret = secrets.get(head);
        }
        deleteLock();
        for (String gone : dead) {
            queue.remove(0);
            timeouts.remove(gone);
            secrets.remove(gone);
        }
        if (head == null) {
            return 0L;
        }
        if (token == null) {
            publish.accept(head);
            return 0L;
        }
        queue.remove(0);
        timeouts.remove(head);
        lock.put(head, "0");
        lock.put(head + ":token", token);
        if (secret != null) {
            String proof = proof(token, secret);
            lock.put(head + ":grant", proof);
            pexpireLock(deadline - now);
            secrets.remove(head);
            publish.accept(head + " " + token + " " + proof);
        } else {
            pexpireLock(deadline - now);
            publish.accept(head);
        }
        return 0L;
    }

    /**
     * abandon.lua.
     *
     * @param secret the secret of the abandoning attempt's last try answered "queued", or ''
     * @return 1 if the waiter was in line or gave a grant back, else 0
     */
    long abandon(String waiter, String secret) {
        expire();
        boolean giveBack = false;
        if ("0".equals(lock.get(waiter))) {
            String proof = lock.get(waiter + ":grant");
            String token = proof == null ? null : lock.get(waiter + ":token");
            giveBack = proof == null || (!secret.isEmpty() && token != null && proof.equals(proof(token, secret)));
        }
        String first = queue.isEmpty() ? null : queue.get(0);
        String next = first;
        if (waiter.equals(first)) {
            next = queue.size() > 1 ? queue.get(1) : null;
        }
        if (giveBack) {
            deleteLock();
        }
        timeouts.remove(waiter);
        secrets.remove(waiter);
        long removed = 0;
        if (first != null) {
            int at = queue.lastIndexOf(waiter);
            if (at >= 0) {
                queue.remove(at);
                removed = 1;
            }
        }
        if (next != null && (waiter.equals(first) || giveBack)) {
            publish.accept(next);
        }
        return giveBack ? 1 : removed;
    }

    /** @return release.lua's proof of a grant: the SHA-1 (hex) of {@code <token>:<secret>} */
    static String proof(String token, String secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest((token + ':' + secret).getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    }

    /**
     * @param field an owner's field
     * @return the token of the owner's hold (taken or only granted) in the lock hash now, or null
     *     if the hash has none (the key expired or was deleted)
     */
    @Nullable String token(String field) {
        expire();
        return lock.containsKey(field) ? lock.get(field + ":token") : null;
    }

    /** @param field an owner's field @return its count in the lock hash, or null */
    @Nullable String count(String field) {
        expire();
        return lock.get(field);
    }

    /** @return true if the lock key exists now */
    boolean locked() {
        expire();
        return !lock.isEmpty();
    }

    /** @return the lock key's time to live in milliseconds, -1 without expiry, -2 if it does not exist */
    long lockTtlMillis() {
        expire();
        return pttl();
    }

    /** @return true if anyone is in line now */
    boolean anyoneInLine() {
        expire();
        return !queue.isEmpty();
    }

    /** @return HGETALL of the lock hash now */
    Map<String, String> hash() {
        expire();
        return new LinkedHashMap<>(lock);
    }

    /** @return LRANGE of the queue now, the first in line first */
    List<String> queue() {
        expire();
        return List.copyOf(queue);
    }

    /** @return the timeouts now: waiter field to its place's deadline, in milliseconds of Redis time */
    Map<String, Long> deadlines() {
        expire();
        return Map.copyOf(timeouts);
    }

    /** @return HGETALL of the secrets now */
    Map<String, String> secrets() {
        expire();
        return Map.copyOf(secrets);
    }

    /** @return when the queue, the timeouts and the secrets expire, in milliseconds of Redis time; -1 for none */
    long lineExpiresAtMillis() {
        expire();
        return lineExpiresAt;
    }

    /** @return GET of the fencing counter, 0 for none */
    long counter() {
        return counter;
    }

    @Override
    public String toString() {
        expire();
        return "lock " + lock + " expiring at " + lockExpiresAt + " ms, queue " + queue + " deadlines " + timeouts
                + " secrets " + secrets.keySet() + ", Redis time " + nowMillis() + " ms";
    }
}
