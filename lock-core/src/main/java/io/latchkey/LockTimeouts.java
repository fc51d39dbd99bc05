package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The four durations of a {@link LockConfig}, each either set on its {@link LockConfig.Builder}
 * or chosen to fit those that were set, and checked against each other: the command timeout is 3 s or a quarter of the watchdog
 * timeout if that is shorter, and at least a RedLock attempt timeout that was set; the watchdog
 * timeout is 30 s or four command timeouts if that is longer; the RedLock attempt timeout is
 * 100 ms or the command timeout if that is shorter; the fair lock wait timeout is the watchdog
 * timeout. So a contradiction needs two settings that were both made, and its message names both.
 * Each is positive and at most a year. Immutable and thread-safe.
 */
public final class LockTimeouts {

    static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    static final Duration DEFAULT_RED_LOCK_ATTEMPT_TIMEOUT = Duration.ofMillis(100);
    /**
     * An unset command timeout is at most this fraction of the watchdog timeout (and an unset
     * watchdog timeout at least this multiple of the command timeout): the renewal sent at a
     * third of the lease may then time out and the one sent at two thirds still lands in time.
     */
    static final int COMMAND_TIMEOUTS_PER_WATCHDOG_TIMEOUT = 4;
    /** The longest lease or timeout a setting may take. */
    private static final Duration MAX_DURATION = Duration.ofDays(365);
    private static final Duration LONGEST = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

    private final Duration watchdog;
    private final Duration fairLockWait;
    private final Duration command;
    private final Duration redLockAttempt;

    private LockTimeouts(Duration watchdog, Duration fairLockWait, Duration command, Duration redLockAttempt) {
        this.watchdog = watchdog;
        this.fairLockWait = fairLockWait;
        this.command = command;
        this.redLockAttempt = redLockAttempt;
    }

    /** {@return the lease of locks taken without one; renewed every third of it while held} */
    public Duration watchdog() {
        return watchdog;
    }

    /**
     * {@return how long a fair-lock waiter may go without retrying before it is evicted from the
     * queue; unless set, the watchdog timeout, so a crashed waiter stalls the queue no longer than
     * a crashed holder does (live waiters retry at least every half of it, so they keep their place)}
     */
    public Duration fairLockWait() {
        return fairLockWait;
    }

    /** {@return the bound on one Redis round trip} */
    public Duration command() {
        return command;
    }

    /** {@return the bound on one RedLock master's answer to an acquire, far below any lease} */
    public Duration redLockAttempt() {
        return redLockAttempt;
    }

    @Override
    public String toString() {
        return "watchdogTimeout=" + watchdog + ", fairLockWaitTimeout=" + fairLockWait + ", commandTimeout=" + command
                + ", redLockAttemptTimeout=" + redLockAttempt;
    }

    /**
     * @param watchdogTimeout the watchdog timeout set, or null
     * @param fairLockWaitTimeout the fair lock wait timeout set, or null
     * @param commandTimeout the command timeout set, or null
     * @param redLockAttemptTimeout the RedLock attempt timeout set, or null
     * @return the durations set, and the others chosen to fit them
     * @throws IllegalArgumentException if a duration set is not positive, longer than a year, or
     *     contradicts another that was set
     */
    static LockTimeouts fit(@Nullable Duration watchdogTimeout, @Nullable Duration fairLockWaitTimeout,
                            @Nullable Duration commandTimeout, @Nullable Duration redLockAttemptTimeout) {
        requirePositiveIfSet("watchdogTimeout", watchdogTimeout);
        requirePositiveIfSet("fairLockWaitTimeout", fairLockWaitTimeout);
        requirePositiveIfSet("commandTimeout", commandTimeout);
        requirePositiveIfSet("redLockAttemptTimeout", redLockAttemptTimeout);

        Duration command = commandTimeout != null ? commandTimeout
                : defaultCommandTimeout(watchdogTimeout, redLockAttemptTimeout);
        Duration watchdog = watchdogTimeout != null ? watchdogTimeout
                : max(DEFAULT_WATCHDOG_TIMEOUT, saturatedTimes(command, COMMAND_TIMEOUTS_PER_WATCHDOG_TIMEOUT));
        Duration attempt = redLockAttemptTimeout != null ? redLockAttemptTimeout
                : min(DEFAULT_RED_LOCK_ATTEMPT_TIMEOUT, command);
        // A crashed waiter then costs the queue no more than a crashed holder: one lease.
        Duration fairWait = fairLockWaitTimeout != null ? fairLockWaitTimeout : watchdog;

        // A renewal sent at lease/3 must land before the lease runs out even when it takes
        // the whole command timeout. Defaults meet this by construction; what breaks it was set.
        requireArgument(command.compareTo(watchdog.minus(command)) < 0, commandTimeout != null
                        ? "commandTimeout (%s) must be shorter than half the watchdogTimeout (%s)"
                        : "redLockAttemptTimeout (%s) must be shorter than half the watchdogTimeout (%s): "
                                + "the commandTimeout must lie between them",
                commandTimeout != null ? command : attempt, watchdog);
        requireArgument(attempt.compareTo(command) <= 0,
                "redLockAttemptTimeout (%s) must not exceed commandTimeout (%s)", attempt, command);
        return new LockTimeouts(watchdog, fairWait, command, attempt);
    }

    /** 3 s, or less so as to fit the watchdog timeout; never below a RedLock attempt timeout that was set. */
    private static Duration defaultCommandTimeout(@Nullable Duration watchdogTimeout, @Nullable Duration redLockAttemptTimeout) {
        Duration watchdog = watchdogTimeout != null ? watchdogTimeout : DEFAULT_WATCHDOG_TIMEOUT;
        Duration fitting = min(DEFAULT_COMMAND_TIMEOUT, watchdog.dividedBy(COMMAND_TIMEOUTS_PER_WATCHDOG_TIMEOUT));
        requireArgument(!fitting.isZero(), "watchdogTimeout (%s) is too short to leave time for a Redis command", watchdog);
        return redLockAttemptTimeout != null ? max(fitting, redLockAttemptTimeout) : fitting;
    }

    private static void requirePositiveIfSet(String setting, @Nullable Duration value) {
        requireArgument(value == null || (!value.isNegative() && !value.isZero()), "%s must be positive: %s", setting, value);
        // A year at most: a lease or a timeout longer than that is a mistake, and past about
        // 2^53 ms the scripts no longer read it as an integer (LeaseTerm.MAX).
        requireArgument(value == null || value.compareTo(MAX_DURATION) <= 0, "%s must be at most %s (a year): %s",
                setting, MAX_DURATION, value);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** @return {@code value * times}, or the longest Duration if that overflows */
    private static Duration saturatedTimes(Duration value, int times) {
        try {
            return value.multipliedBy(times);
        } catch (ArithmeticException tooLong) {
            return LONGEST;
        }
    }
}
