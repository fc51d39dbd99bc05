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
        LockConfig config = LockConfig.builder()
                .address(args[0])
                .watchdogTimeout(watchdog)
                .commandTimeout(watchdog.dividedBy(2).minusMillis(50))
                .build();
        LockClient client = connect(config);
        client.getLock(args[1]).lock();
        System.out.println(LOCKED);
        System.out.flush();
        Thread.currentThread().join(); // hold until killed
    }

    /**
     * A cold JVM loads Netty and Lettuce during its first handshake, which may take longer than
     * the short command timeout the test needs for the lease; try a few times.
     */
    private static LockClient connect(LockConfig config) {
        for (int attempt = 1; ; attempt++) {
            try {
                return LockClient.create(config);
            } catch (LockException e) {
                if (attempt == 5) {
                    throw e;
                }
                System.err.println("connect attempt " + attempt + " failed: " + e.getMessage());
            }
        }
    }
}
