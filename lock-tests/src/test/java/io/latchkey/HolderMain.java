package io.latchkey;

import java.time.Duration;

/**
 * A lock holder in a JVM of its own, for {@link CrashedHolderTest}: takes the lock with a
 * watchdog lease, prints {@value #LOCKED} and holds it until the process is killed.
 *
 * <p>Arguments: the Redis URI, the lock name, the watchdog lease in milliseconds.
 */
public final class HolderMain {

    static final String LOCKED = "LOCKED";

    private HolderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            System.err.println("usage: HolderMain <redis-uri> <lock-name> <watchdog-ms>");
            System.exit(2);
        }
        Duration watchdog = Duration.ofMillis(Long.parseLong(args[2]));
        LockClient client = LockClient.create(LockConfig.builder()
                .address(args[0])
                .watchdogTimeout(watchdog)
                .commandTimeout(watchdog.dividedBy(4))
                .build());
        client.getLock(args[1]).lock();
        System.out.println(LOCKED);
        System.out.flush();
        Thread.currentThread().join(); // hold until killed
    }
}
