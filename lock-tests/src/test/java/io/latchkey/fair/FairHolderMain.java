package io.latchkey.fair;

import io.latchkey.LockClient;

/**
 * A fair-lock holder in a JVM of its own, for {@link FairLockEvictionTest}: takes the lock with
 * {@code lock()} (so the watchdog renews its lease), prints {@code LOCKED} and holds it until the
 * process is killed.
 *
 * <p>Arguments: as for {@link FairWaiterMain}.
 */
public final class FairHolderMain {

    private FairHolderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        LockClient client = FairWaiterMain.client("FairHolderMain", args);
        client.getFairLock(args[1]).lock();
        System.out.println("LOCKED");
        System.out.flush();
        Thread.currentThread().join(); // hold until killed
    }
}
