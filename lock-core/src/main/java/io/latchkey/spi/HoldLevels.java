package io.latchkey.spi;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The levels of one {@link Hold}, innermost last, each marked with whether it took the watchdog
 * lease, and the watchdog's renewal of the hold: the one count of a hold's levels on the client.
 * The watchdog renews a hold exactly while one of its levels took the watchdog lease, so a
 * re-entry with a fixed lease neither starts renewal nor stops it. A level leaves the count the
 * moment its release is asked for, so that a release whose answer is lost never leaves its hold
 * renewed; the hold ends only once every release asked for was answered. Not thread-safe: its
 * hold's monitor guards it.
 */
final class HoldLevels {

    private final Deque<Boolean> levels = new ArrayDeque<>();
    private int watchdogLevels;
    /** Releases asked for and not yet answered. */
    private int releasing;
    /** The watchdog's renewal of the hold, or null while none was started. */
    private @Nullable LeaseRegistration renewal;

    /** @param watchdog true if the level took the watchdog lease */
    void enter(boolean watchdog) {
        levels.addLast(watchdog);
        if (watchdog) {
            watchdogLevels++;
        }
    }

    /** @return true while a level that took the watchdog lease is left, its release not yet asked for */
    boolean renewed() {
        return watchdogLevels > 0;
    }

    /**
     * Starts the watchdog's renewal if a level took the watchdog lease and no renewal runs.
     *
     * @param watchdog starts renewing the hold
     */
    void renewWith(Supplier<LeaseRegistration> watchdog) {
        if (renewed() && (renewal == null || !renewal.isActive())) {
            renewal = watchdog.get();
        }
    }

    /** The release of the innermost level is asked for: it leaves the count, and the renewal with the last watchdog level. */
    void releasing() {
        if (pop()) {
            releasing++;
        }
    }

    /**
     * The release of one level was answered (or failed): the one {@link #releasing} took off, or
     * the innermost if none was.
     *
     * @return true if no level is left and no release is unanswered
     */
    boolean leave() {
        if (releasing > 0) {
            releasing--;
        } else {
            pop();
        }
        return levels.isEmpty() && releasing == 0;
    }

    /** The hold is over or lost: nothing renews it any more. */
    void stopRenewal() {
        if (renewal != null) {
            renewal.cancel();
            renewal = null;
        }
    }

    /** @return false if no level was left */
    private boolean pop() {
        Boolean watchdog = levels.pollLast();
        if (Boolean.TRUE.equals(watchdog) && --watchdogLevels == 0) {
            stopRenewal();
        }
        return watchdog != null;
    }
}
