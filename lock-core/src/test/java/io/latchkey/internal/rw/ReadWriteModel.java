package io.latchkey.internal.rw;

import io.latchkey.spi.Ticker;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The Redis side of one read-write lock as its Lua scripts define it (acquire.lua, release.lua,
 * reserve.lua, renew.lua, abandon.lua), for {@link ReadShareSimulation}: every hold with its count,
 * token, last call and lease of its own; the write hold; the waiting writers with their places;
 * the slot's fencing counter; what the scripts publish on the writers' and the readers' channel.
 * Time is the {@link Ticker}'s, in nanoseconds (the scripts' milliseconds of Redis TIME): a hold
 * whose lease ended and a place that ran out are gone, as the scripts treat them, whether or not
 * a script has cleared them out yet. A new hold's token is max(counter + 1, Redis TIME in
 * microseconds). Not modelled: the keys' PEXPIRE (the per-hold leases decide the same), the
 * counter's 2^53 bound, error replies. Not thread-safe: the simulation runs on one thread.
 *
 * <p>It also records, for the simulation's checks, since when each waiting writer's place has
 * been live without a break.
 */
final class ReadWriteModel {

    /** The writers' channel: an empty message wakes one writer per client. */
    static final String WRITERS = "writers";
    /** The readers' channel: {@code *} wakes every reader of each client. */
    static final String READERS = "readers";
    /** An epoch in microseconds for Redis's TIME: 2025-11-26. */
    private static final long SERVER_EPOCH_MICROS = 1_764_132_000_000_000L;

    /** Acquire.lua's answer: {1, count, token}, {0, wait in ms}, {-1} a gone hold, {-2} an upgrade. */
    record Acquired(long status, long countOrWait, long token) {
    }

    /** One hold: its count, token, last call and the end of its lease. */
    private static final class HoldState {
        long count;
        long token;
        String call;
        long leaseEnd;
    }

    /**
     * One waiting writer's place: its end, since when it has been live without a break, and which
     * place that is (one taken again after a break is another, also at the same time).
     */
    record Place(long end, long since, long number) {
    }

    private final Ticker clock;
    private final Map<String, HoldState> holds = new LinkedHashMap<>();
    private String writer;
    private final Map<String, Place> places = new LinkedHashMap<>();
    private long placesTaken;
    private long counter;
    private final List<BiConsumer<String, String>> subscribers = new ArrayList<>();

    ReadWriteModel(Ticker clock) {
        this.clock = clock;
    }

    /** @param subscriber told each message the scripts publish, channel and message, in order */
    void subscribe(BiConsumer<String, String> subscriber) {
        subscribers.add(subscriber);
    }

    private long now() {
        return clock.read();
    }

    private long micros() {
        return SERVER_EPOCH_MICROS + Math.floorDiv(now(), 1_000);
    }

    private void publish(String channel, String message) {
        List.copyOf(subscribers).forEach(subscriber -> subscriber.accept(channel, message));
    }

    private boolean alive(String field) {
        HoldState hold = field == null ? null : holds.get(field);
        return hold != null && hold.leaseEnd - now() > 0;
    }

    private boolean anyAlive() {
        long now = now();
        return holds.values().stream().anyMatch(hold -> hold.leaseEnd - now > 0);
    }

    private boolean writersWait() {
        long now = now();
        return places.values().stream().anyMatch(place -> place.end - now > 0);
    }

    private void drop(String field) {
        holds.remove(field);
        if (field.equals(writer)) {
            writer = null;
        }
    }

    private long nextToken(int block) {
        long first = Math.max(counter + 1, micros());
        counter = first + block - 1;
        return first;
    }

    private static long millis(long nanos) {
        return Math.max(1, nanos / 1_000_000);
    }

    /**
     * acquire.lua.
     *
     * @param reading the read side, else the write side
     * @param held {@code ""}, {@code "fresh"} or the token of the hold to re-enter
     */
    Acquired acquire(boolean reading, String field, String sibling, long leaseNanos, String call, String held,
                     long placeNanos, int block) {
        long now = now();
        boolean fresh = held.equals("fresh");
        String reenter = fresh ? "" : held;
        HoldState own = holds.get(field);
        boolean holding = !fresh && own != null && own.leaseEnd - now > 0;
        if (!reenter.isEmpty()) {
            if (!holding || !Long.toString(own.token).equals(reenter)) {
                return new Acquired(-1, 0, 0);
            }
            return grant(field, own, reading, leaseNanos, call, block);
        }
        if (holding) {
            return grant(field, own, reading, leaseNanos, call, block);
        }
        if (!reading && alive(sibling)) {
            return new Acquired(-2, 0, 0);
        }
        if (own != null) {
            drop(field);
        }
        Long wait = null;
        String holder = writer;
        if (holder != null) {
            if (!alive(holder)) {
                drop(holder);
                holder = null;
            } else if (!holder.equals(sibling)) {
                wait = holds.get(holder).leaseEnd - now;
            }
        }
        if (reading && wait != null) {
            return new Acquired(0, millis(wait), 0);
        }
        holds.values().removeIf(hold -> hold.leaseEnd - now <= 0);
        if (reading) {
            if (holder == null && writersWait()) {
                long last = places.values().stream().mapToLong(Place::end).max().orElseThrow();
                return new Acquired(0, millis(last - now), 0);
            }
            return grant(field, null, true, leaseNanos, call, block);
        }
        if (wait == null && anyAlive()) {
            wait = holds.values().stream().mapToLong(hold -> hold.leaseEnd).max().orElseThrow() - now;
        }
        if (wait == null) {
            return grant(field, null, false, leaseNanos, call, block);
        }
        places.values().removeIf(place -> place.end - now <= 0);
        Place before = places.get(field);
        places.put(field, before == null ? new Place(now + placeNanos, now, ++placesTaken)
                : new Place(now + placeNanos, before.since, before.number));
        return new Acquired(0, millis(Math.min(placeNanos / 2, wait)), 0);
    }

    private Acquired grant(String field, HoldState existing, boolean reading, long leaseNanos, String call, int block) {
        HoldState hold = existing;
        if (hold == null) {
            hold = new HoldState();
            hold.token = nextToken(block);
            holds.put(field, hold);
            if (!reading) {
                places.remove(field);
                writer = field;
            }
        }
        long expires = now() + leaseNanos;
        if (hold.leaseEnd - expires < 0) {
            hold.leaseEnd = expires;
        }
        hold.call = call;
        hold.count++;
        return new Acquired(1, hold.count, hold.token);
    }

    /**
     * release.lua, but for 'force'.
     *
     * @param mode {@code release}, {@code undo} or {@code end}
     * @param token with {@code end}, the token of the hold to end
     * @return the levels left, or null when there was nothing to do
     */
    Long release(String field, String call, String mode, long token) {
        boolean held = alive(field);
        HoldState hold = holds.get(field);
        if (mode.equals("end")) {
            if (!held || hold.token != token) {
                return null;
            }
            return finish(field);
        }
        String last = hold == null ? null : hold.call;
        if (mode.equals("undo")) {
            if (last == null || !last.equals(call)) {
                return null;
            }
        } else if (last != null && last.equals(call)) {
            return hold.count;
        }
        if (!held) {
            return null;
        }
        long left = --hold.count;
        if (left > 0) {
            hold.call = mode.equals("undo") ? null : call;
            return left;
        }
        return finish(field);
    }

    private long finish(String field) {
        boolean wasWriter = field.equals(writer);
        holds.remove(field);
        boolean writersWait = writersWait();
        if (!anyAlive()) {
            holds.clear();
            writer = null;
            if (writersWait) {
                publish(WRITERS, "");
            } else if (wasWriter) {
                publish(READERS, "*");
            }
            return 0;
        }
        if (wasWriter) {
            writer = null;
            if (!writersWait) {
                publish(READERS, "*");
            }
        }
        return 0;
    }

    /**
     * release.lua with 'force'.
     *
     * @param reading ends every read hold, else the write hold
     * @return whether it ended a hold
     */
    boolean force(boolean reading) {
        boolean writing = alive(writer);
        if (!reading) {
            if (!writing) {
                return false;
            }
            finish(writer);
            return true;
        }
        if (writing) {
            String own = writer.substring(0, writer.length() - ":write".length()) + ":read";
            if (!alive(own)) {
                return false;
            }
            finish(own);
            return true;
        }
        if (!anyAlive()) {
            return false;
        }
        holds.clear();
        writer = null;
        if (writersWait()) {
            publish(WRITERS, "");
        }
        return true;
    }

    /** @return reserve.lua's answer, as the client reads it */
    ShareRedis.Reserved reserve(String field, long token, int block) {
        HoldState hold = holds.get(field);
        if (!alive(field) || hold.token != token) {
            return new ShareRedis.Reserved(false, false, 0);
        }
        if (writersWait()) {
            return new ShareRedis.Reserved(true, true, 0);
        }
        return new ShareRedis.Reserved(true, false, nextToken(block));
    }

    /** @return renew.lua's answer for one hold: whether it was there, its lease now at least {@code leaseNanos} */
    boolean renew(String field, long leaseNanos) {
        if (!alive(field)) {
            return false;
        }
        HoldState hold = holds.get(field);
        long expires = now() + leaseNanos;
        if (hold.leaseEnd - expires < 0) {
            hold.leaseEnd = expires;
        }
        return true;
    }

    /** @return abandon.lua's answer: whether the writer was waiting */
    boolean abandon(String field) {
        if (places.remove(field) == null) {
            return false;
        }
        if (writersWait()) {
            return true;
        }
        if (!alive(writer)) {
            publish(READERS, "*");
        }
        return true;
    }

    /** @return the levels of the field's hold, as inspect.lua counts them: 0 if it is gone */
    long count(String field) {
        return alive(field) ? holds.get(field).count : 0;
    }

    /** @return the token of the field's hold, or 0 if it is gone */
    long token(String field) {
        return alive(field) ? holds.get(field).token : 0;
    }

    /** @return when the field's hold's lease ends, by the ticker; only for a hold that is there */
    long leaseEnd(String field) {
        return holds.get(field).leaseEnd;
    }

    /** @return whether any hold or live waiting writer is there */
    boolean busy() {
        return anyAlive() || writersWait();
    }

    /** @return the live places of waiting writers, by field */
    Map<String, Place> livePlaces() {
        long now = now();
        Map<String, Place> live = new LinkedHashMap<>();
        places.forEach((field, place) -> {
            if (place.end - now > 0) {
                live.put(field, place);
            }
        });
        return live;
    }

    /** @return the fencing counter */
    long counter() {
        return counter;
    }

    /** @param value the fencing counter from now on, as another lock kind may have left it */
    void setCounter(long value) {
        counter = value;
    }

    /** A failover to a replica that had not received the lock's keys (the counter it had). */
    void loseLock() {
        holds.clear();
        writer = null;
        places.clear();
    }

    @Override
    public String toString() {
        long now = now();
        StringBuilder out = new StringBuilder("holds {");
        holds.forEach((field, hold) -> out.append(' ').append(field).append('=').append(hold.count).append('/')
                .append(hold.token).append(hold.leaseEnd - now > 0 ? "" : " (ended)"));
        out.append(" }, writer ").append(writer).append(", places ").append(livePlaces().keySet()).append(", counter ")
                .append(counter);
        return out.toString();
    }
}
