package io.latchkey.semaphore;

import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import java.time.Duration;

/**
 * A permit holder in a JVM of its own, for the crashed-holder test of
 * {@link DistributedSemaphoreContract}: takes permits with the watchdog lease, prints
 * {@value #HOLDING} and holds them until the process is killed.
 *
 * <p>Arguments: {@code address} or {@code cluster}, the Redis URI(s) (comma-separated for a
 * Cluster), the semaphore name, its permits, how many to take, the watchdog lease in milliseconds.
 */
public final class PermitHolderMain {

    static final String HOLDING = "HOLDING";

    private PermitHolderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 6) {
            System.err.println("usage: PermitHolderMain address|cluster <uris> <name> <permits> <take> <watchdog-ms>");
            System.exit(2);
        }
        Duration watchdog = Duration.ofMillis(Long.parseLong(args[5]));
        LockConfig.Builder builder = LockConfig.builder()
                .watchdogTimeout(watchdog)
                .commandTimeout(watchdog.dividedBy(2).minusMillis(50));
        LockConfig config = (args[0].equals("cluster") ? builder.clusterAddresses(args[1].split(",")) : builder.address(args[1]))
                .build();
        LockClient client = connect(config);
        DistributedSemaphore semaphore = client.getSemaphore(args[2], Integer.parseInt(args[3]));
        for (int i = 0; i < Integer.parseInt(args[4]); i++) {
            semaphore.acquire();
        }
        System.out.println(HOLDING);
        System.out.flush();
        Thread.currentThread().join(); // hold until killed
    }

    /** A cold JVM may need longer than the short command timeout for its first handshake. */
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
