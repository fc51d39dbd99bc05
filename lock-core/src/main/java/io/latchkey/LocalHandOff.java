package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds of the plain lock's local hand-off (lock cohorting): while this client holds a
 * plain lock in Redis, an unlock passes the hold straight to a waiting thread (or async owner)
 * of this client, without a round trip. While a client with local hand-off on waits for the
 * lock too, at most {@code maxHandOffs} times in a row and for at most {@code maxTime} from
 * the Redis acquisition; then the hold is released in Redis and reserved for that client's
 * turn, which it takes with one round trip. The bounds count from the moment Redis has that
 * client's try: the holder reads the lock's waiting mark every {@code maxHandOffs / 2}
 * hand-offs, and hands off no further than {@code maxHandOffs} past its last answer, nor
 * while a read has been unanswered for {@code maxTime}, before it hears again. With nobody
 * else waiting, the hold is passed on as long as this client has waiters (released and taken
 * again in Redis every 1,024 hand-offs or {@code maxHandOffs}, whichever is more, for a fresh
 * block of fencing tokens). Clients
 * with local hand-off off are not seen as waiting: give every client of a lock the same
 * setting. On by default with {@link #DEFAULT}; {@link LockConfig.Builder#noLocalHandOff()} turns
 * it off. Plain locks and a client's RedLocks taken with the watchdog lease are passed on
 * locally (a RedLock's quorum hold, with its lease as confirmed by a majority), and a
 * read-write lock's readers of one client share one read hold in Redis within the same bounds;
 * fixed leases, fair locks and {@code RedLock.of} go through Redis as always.
 *
 * @param maxHandOffs the most local hand-offs per Redis hold while another client waits; 1 to
 *     1,000,000
 * @param maxTime the longest time one Redis hold is passed on locally while another client
 *     waits; positive
 */
public record LocalHandOff(int maxHandOffs, Duration maxTime) {

    /**
     * The bounds a client has unless set otherwise, and those {@link LockConfig.Builder#localHandOff()}
     * sets: 32 hand-offs, 20 ms.
     */
    public static final LocalHandOff DEFAULT = new LocalHandOff(32, Duration.ofMillis(20));

    /**
     * Validates the bounds.
     *
     * @param maxHandOffs the most local hand-offs per Redis hold
     * @param maxTime the longest time one Redis hold is passed on locally
     * @throws IllegalArgumentException if {@code maxHandOffs} is outside 1 to 1,000,000 or
     *     {@code maxTime} is not positive
     * @throws NullPointerException if {@code maxTime} is null
     */
    public LocalHandOff {
        Objects.requireNonNull(maxTime, "maxTime");
        requireArgument(maxHandOffs >= 1 && maxHandOffs <= 1_000_000,
                "localHandOff maxHandOffs must be between 1 and 1000000: %s", maxHandOffs);
        requireArgument(!maxTime.isNegative() && !maxTime.isZero(),
                "localHandOff maxTime must be positive: %s", maxTime);
    }
}
