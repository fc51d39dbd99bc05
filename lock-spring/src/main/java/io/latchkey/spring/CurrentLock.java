package io.latchkey.spring;

import io.latchkey.LockHold;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The hold of the innermost {@link Locked @Locked} method running on the calling thread, for
 * code inside it that needs its fencing token or its loss notice. Only the thread that called the
 * method sees it: work the method hands to other threads must take the token along.
 */
public final class CurrentLock {

    private static final ThreadLocal<Deque<LockHold>> HOLDS = ThreadLocal.withInitial(ArrayDeque::new);

    private CurrentLock() {
    }

    /** {@return the innermost {@code @Locked} method's hold on this thread, if one runs} */
    public static Optional<LockHold> hold() {
        return Optional.ofNullable(HOLDS.get().peek());
    }

    /**
     * The fencing token of the hold, for writes that the resource fences.
     *
     * @return the fencing token of the innermost {@code @Locked} method's hold on this thread
     * @throws IllegalStateException if no {@code @Locked} method runs on this thread
     */
    public static long fencingToken() {
        return hold().orElseThrow(() -> new IllegalStateException("no @Locked method runs on this thread"))
                .fencingToken();
    }

    static void enter(LockHold hold) {
        HOLDS.get().push(hold);
    }

    static void leave() {
        Deque<LockHold> holds = HOLDS.get();
        holds.pop();
        if (holds.isEmpty()) {
            HOLDS.remove(); // nothing left behind on pooled threads
        }
    }
}
