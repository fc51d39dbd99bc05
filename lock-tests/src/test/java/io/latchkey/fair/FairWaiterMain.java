package io.latchkey.fair;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import java.time.Duration;

/**
 * A fair-lock waiter in a JVM of its own, for {@link FairLockEvictionTest}: joins the line of a
 * held lock with {@code lock()} and keeps waiting (and so trying) until the process is killed.
 *
 * <p>Arguments: the Redis URI, the lock name, fairLockWaitTimeout in milliseconds.
 */
public final class FairWaiterMain {

    private FairWaiterMain() {
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: FairWaiterMain <redis-uri> <lock-name> <fair-lock-wait-timeout-ms>");
            System.exit(2);
        }
        LockClient client = LockClient.create(LockConfig.builder()
                .address(args[0])
                .fairLockWaitTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build());
        System.out.println("WAITING");
        System.out.flush();
        client.getFairLock(args[1]).lock();
        System.out.println("LOCKED, which the test never lets happen");
        System.out.flush();
    }
}
