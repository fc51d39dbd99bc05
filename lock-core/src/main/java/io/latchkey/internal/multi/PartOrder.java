package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The one order in which every multi-lock takes its parts, so that two multi-lock calls over
 * shared locks never each hold a lock that the other waits for: by name, then by where the lock
 * lives (its Redis address, where the client knows it), then as given. Two multi-locks in
 * different processes agree on it as long as they agree on the names and addresses; only parts
 * of one name whose place cannot be told apart (a fair lock and a RedLock of one name, say) keep
 * the order the caller gave.
 */
final class PartOrder {

    /**
     * The most parts of one multi-lock: each is taken in its own round trip, one after another,
     * so a multi-lock far larger is a design error, and it would hold the parts taken first for
     * as long as the rest take.
     */
    static final int MAX_PARTS = 1000;

    private static final Comparator<Part> ORDER = Comparator
            .comparing((Part part) -> part.lock().getName())
            .thenComparing(part -> part.place().orElse(""));

    private PartOrder() {
    }

    /**
     * @param locks the locks as the application gave them
     * @param timer the multi-lock client's timer, for parts that are not Latchkey's own locks
     * @param foreignGraceNanos see {@link ForeignPart}
     * @return the parts in the order in which they are taken
     * @throws NullPointerException if {@code locks} or one of them is null
     * @throws IllegalArgumentException if there is none, more than {@value #MAX_PARTS}, or one lock is given twice: the same lock
     *     object, two objects of one lock of one client, or two plain locks of one name on the same
     *     Redis through two clients (whose owners would wait for each other)
     */
    static List<Part> of(DistributedLock[] locks, Timer timer, long foreignGraceNanos) {
        Objects.requireNonNull(locks, "locks");
        if (locks.length == 0) {
            throw new IllegalArgumentException("locks must name at least one lock");
        }
        if (locks.length > MAX_PARTS) {
            throw new IllegalArgumentException("a multi-lock takes at most " + MAX_PARTS + " locks, not " + locks.length);
        }
        List<Part> parts = new ArrayList<>(locks.length);
        Map<Object, Integer> seen = new HashMap<>();
        Map<List<String>, Integer> placed = new HashMap<>();
        for (int i = 0; i < locks.length; i++) {
            Part part = Part.of(Objects.requireNonNull(locks[i], "locks[" + i + "]"), timer, foreignGraceNanos);
            Integer same = seen.putIfAbsent(part.identity(), i);
            if (same == null && part.place().isPresent()) {
                same = placed.putIfAbsent(List.of(part.lock().getName(), part.place().get()), i);
            }
            if (same != null) {
                throw new IllegalArgumentException("locks[" + same + "] and locks[" + i + "] are the same lock '"
                        + part.lock().getName() + "': a multi-lock takes each lock once");
            }
            parts.add(part);
        }
        parts.sort(ORDER); // stable: equal parts keep the order given
        return List.copyOf(parts);
    }
}
