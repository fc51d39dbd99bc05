package io.latchkey.fencing;

import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lock holder in a JVM of its own, for {@link FencedWriteTest}: acquires the lock with a
 * watchdog lease, prints its token, then waits for a line on standard input (the test freezes
 * this JVM meanwhile) and writes to the fenced resource with that token, as a holder that paused
 * in the middle of its work and goes on where it stopped. It reports each step on standard output:
 * {@value #TOKEN}, {@value #LEASE_LOST} (when the notice arrives), {@value #WRITTEN}, {@value #VALID}
 * and {@value #CLOSED}.
 *
 * <p>Arguments: the Redis URI, the lock name, the resource key, the watchdog lease in milliseconds.
 */
public final class FencedHolderMain {

    static final String TOKEN = "TOKEN ";
    static final String LEASE_LOST = "LEASE_LOST";
    static final String WRITTEN = "WRITTEN ";
    static final String VALID = "VALID ";
    static final String CLOSED = "CLOSED ";

    private FencedHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: FencedHolderMain <redis-uri> <lock-name> <resource-key> <watchdog-ms>");
            System.exit(2);
        }
        Duration watchdog = Duration.ofMillis(Long.parseLong(args[3]));
        LockConfig config = LockConfig.builder()
                .address(args[0])
                .watchdogTimeout(watchdog)
                .commandTimeout(watchdog.dividedBy(3))
                .build();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (LockClient client = connect(config); FencedResource resource = new FencedResource(args[0])) {
            LockHold hold = client.getLock(args[1]).acquire();
            hold.leaseLost().thenRun(() -> say(LEASE_LOST));
            say(TOKEN + hold.fencingToken());

            in.readLine(); // frozen here by the test; the line is there when this JVM goes on

            say(WRITTEN + resource.write(args[2], hold.fencingToken(), "written by the paused holder"));
            try {
                hold.leaseLost().get(10, TimeUnit.SECONDS);
            } catch (TimeoutException notLost) {
                // reported by the lines below
            }
            say(VALID + hold.isValid());
            try {
                hold.close();
                say(CLOSED + "normally");
            } catch (LeaseLostException expected) {
                say(CLOSED + LeaseLostException.class.getSimpleName());
            } catch (RuntimeException e) {
                say(CLOSED + e);
            }
        }
    }

    private static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
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
