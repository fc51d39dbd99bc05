package io.latchkey.fair;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import java.time.Duration;

/**
 * A fair-lock waiter in a JVM of its own, for {@link FairLockEvictionTest}: joins the line of a
 * held lock with {@code lock()} and keeps waiting (and so trying) until the process is killed.
 *
 * <p>Arguments: the Redis URI, the lock name, then any of {@code watchdogTimeout=<ms>} and
 * {@code fairLockWaitTimeout=<ms>}; what is not given keeps its default.
 */
public final class FairWaiterMain {

    private FairWaiterMain() {
    }

    public static void main(String[] args) {
        LockClient client = client("FairWaiterMain", args);
        System.out.println("WAITING");
        System.out.flush();
        client.getFairLock(args[1]).lock();
        System.out.println("LOCKED, which the test never lets happen");
        System.out.flush();
    }

    /** @return a client to the Redis URI in {@code args[0]} with the settings from {@code args[2]} on */
    static LockClient client(String main, String[] args) {
        if (args.length < 2) {
            System.err.println("usage: " + main + " <redis-uri> <lock-name> [watchdogTimeout=<ms>] [fairLockWaitTimeout=<ms>]");
            System.exit(2);
        }
        LockConfig.Builder config = LockConfig.builder().address(args[0]);
        for (int i = 2; i < args.length; i++) {
            String[] setting = args[i].split("=", 2);
            Duration millis = Duration.ofMillis(Long.parseLong(setting[1]));
            switch (setting[0]) {
                case "watchdogTimeout" -> config.watchdogTimeout(millis);
                case "fairLockWaitTimeout" -> config.fairLockWaitTimeout(millis);
                default -> throw new IllegalArgumentException("unknown setting " + args[i]);
            }
        }
        return LockClient.create(config.build());
    }
}
