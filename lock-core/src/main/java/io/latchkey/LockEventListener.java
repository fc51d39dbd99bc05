package io.latchkey;

import java.time.Duration;
import java.util.Objects;

/**
 * Told what the locks of one {@link LockClient} do: acquisitions, releases, lease renewals, lost
 * leases and local hand-offs. Set one with {@link LockConfig.Builder#eventListener}; metrics
 * bindings (such as {@code lock-micrometer}'s) are listeners.
 *
 * <p><b>Threads.</b> Every method is called on a thread of Latchkey's (a Redis I/O thread, the
 * client's timer) or on the thread of the call that caused the event, possibly on several
 * threads at once: an implementation must be thread-safe and must return quickly, without
 * blocking, as the lock's own work waits for it. A listener that throws is logged at WARN and
 * otherwise ignored: the lock goes on as if nothing happened.
 *
 * <p><b>Cost.</b> Without a listener (the default, {@link #NONE}) no event object is made and no
 * time is measured for events.
 *
 * <p>Every method does nothing unless overridden, so an implementation picks the events it wants.
 */
public interface LockEventListener {

    /** The listener of a client that was given none: does nothing, and costs nothing. */
    LockEventListener NONE = new LockEventListener() {
        @Override
        public String toString() {
            return "LockEventListener.NONE";
        }
    };

    /**
     * An acquisition starts: the owner now waits for the lock (or gets it at once). Each such
     * call is followed by exactly one {@link #acquireEnded}.
     *
     * @param event the lock and its kind
     */
    default void acquireStarted(AcquireStarted event) {
    }

    /**
     * An acquisition ended: acquired (also a re-entry), timed out, interrupted or failed.
     *
     * @param event the lock, how long the owner waited, and the outcome
     */
    default void acquireEnded(AcquireEnded event) {
    }

    /**
     * A hold ended by its owner's last release (not told for re-entries' releases, nor for a
     * hold whose lease was lost, which {@link #leaseLost} tells of instead).
     *
     * @param event the lock and how long the hold lasted
     */
    default void released(Released event) {
    }

    /**
     * The watchdog renewed a batch of leases in one script call, or failed to.
     *
     * @param event how many holds, how long the round trip took, the outcome
     */
    default void renewed(Renewal event) {
    }

    /**
     * A hold's lease was found lost (see {@link Lease#leaseLost()}): at most once per hold.
     *
     * @param event the lock, the owner and why
     */
    default void leaseLost(LeaseLost event) {
    }

    /**
     * A hold passed from one owner to another owner of the same client without going through
     * Redis (a local hand-off).
     *
     * @param event the lock and the owners
     */
    default void handedOff(HandedOff event) {
    }

    /** How an acquisition ended. */
    enum AcquireOutcome {
        /** The owner holds the lock (a new hold or a re-entry). */
        ACQUIRED,
        /** The wait ran out without the lock. */
        TIMED_OUT,
        /** The owner stopped waiting: it was interrupted, or its future was cancelled. */
        INTERRUPTED,
        /** Redis failed, or the owner's lease was found lost; the caller got an exception. */
        FAILED
    }

    /** How a renewal round trip ended. */
    enum RenewalOutcome {
        /** Redis answered: each hold was renewed, or found gone (told by {@link #leaseLost}). */
        RENEWED,
        /** Redis did not answer, or refused; the watchdog retries soon. */
        FAILED
    }

    /**
     * An acquisition started.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind: {@code "plain"}, {@code "fair"}, {@code "red"}, …
     * @param ownerId the owner that acquires
     */
    record AcquireStarted(String lockName, String kind, long ownerId) {
        /**
         * Checks the components.
         *
         * @param lockName the lock's name; not null
         * @param kind the lock's kind; not null
         * @param ownerId the owner
         */
        public AcquireStarted {
            Objects.requireNonNull(lockName, "lockName");
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * An acquisition ended.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param ownerId the owner that acquired
     * @param waited from the start of the acquisition to its end
     * @param outcome how it ended
     * @param fencingToken the hold's fencing token if {@link AcquireOutcome#ACQUIRED}, else 0
     */
    record AcquireEnded(String lockName, String kind, long ownerId, Duration waited, AcquireOutcome outcome,
                        long fencingToken) {
        /**
         * Checks the components.
         *
         * @param lockName the lock's name; not null
         * @param kind the lock's kind; not null
         * @param ownerId the owner
         * @param waited not null
         * @param outcome not null
         * @param fencingToken the token, or 0
         */
        public AcquireEnded {
            Objects.requireNonNull(lockName, "lockName");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(waited, "waited");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * A hold ended by its last release.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param ownerId the owner that released
     * @param fencingToken the hold's fencing token
     * @param heldFor from the hold's first grant to its last release
     */
    record Released(String lockName, String kind, long ownerId, long fencingToken, Duration heldFor) {
        /**
         * Checks the components.
         *
         * @param lockName the lock's name; not null
         * @param kind the lock's kind; not null
         * @param ownerId the owner
         * @param fencingToken the token
         * @param heldFor not null
         */
        public Released {
            Objects.requireNonNull(lockName, "lockName");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(heldFor, "heldFor");
        }
    }

    /**
     * One renewal round trip of the watchdog.
     *
     * @param batchSize how many holds it renewed (or tried to)
     * @param took from sending it to its answer or failure
     * @param outcome how it ended
     */
    record Renewal(int batchSize, Duration took, RenewalOutcome outcome) {
        /**
         * Checks the components.
         *
         * @param batchSize at least 1
         * @param took not null
         * @param outcome not null
         */
        public Renewal {
            Objects.requireNonNull(took, "took");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * A hold's lease was found lost.
     *
     * @param lockName the lock's name
     * @param ownerId the owner that held it
     * @param fencingToken the hold's fencing token
     * @param reason how it was lost, in words
     */
    record LeaseLost(String lockName, long ownerId, long fencingToken, String reason) {
        /**
         * Checks the components.
         *
         * @param lockName the lock's name; not null
         * @param ownerId the owner
         * @param fencingToken the token
         * @param reason not null
         */
        public LeaseLost {
            Objects.requireNonNull(lockName, "lockName");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * A local hand-off.
     *
     * @param lockName the lock's name
     * @param kind the lock's kind
     * @param fromOwnerId the owner that released
     * @param toOwnerId the owner that now holds
     */
    record HandedOff(String lockName, String kind, long fromOwnerId, long toOwnerId) {
        /**
         * Checks the components.
         *
         * @param lockName the lock's name; not null
         * @param kind the lock's kind; not null
         * @param fromOwnerId the owner that released
         * @param toOwnerId the owner that now holds
         */
        public HandedOff {
            Objects.requireNonNull(lockName, "lockName");
            Objects.requireNonNull(kind, "kind");
        }
    }
}
