package app;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;

/**
 * Takes and releases a plain, a fair and a Red lock, and checks that it runs as a named module
 * that sees only Latchkey's API. Prints one line per check; exits with a stack trace (status 1)
 * when one fails.
 *
 * <p>Arguments: the URIs of three independent Redis servers; the first also serves the plain and
 * the fair lock.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        Module core = LockClient.class.getModule();
        check(Main.class.getModule().isNamed(), "the application is a named module");
        check("io.latchkey.core".equals(core.getName()), "LockClient is in module io.latchkey.core (" + core + ")");
        check(!core.isExported("io.latchkey.internal.client"), "the internals are not exported to the application");
        check(ModuleLayer.boot().findModule("io.latchkey.fair").isPresent(), "io.latchkey.fair was resolved by service binding");
        check(ModuleLayer.boot().findModule("io.latchkey.redlock").isPresent(), "io.latchkey.redlock was resolved by service binding");
        for (String kind : new String[] {"io.latchkey.fair", "io.latchkey.redlock"}) {
            Module friend = ModuleLayer.boot().findModule(kind).orElseThrow();
            check(core.getPackages().stream().filter(name -> name.startsWith("io.latchkey.internal."))
                    .noneMatch(name -> core.isExported(name, friend)), "no internal package is exported to " + kind + ", only the SPI");
        }

        LockConfig config = LockConfig.builder().address(args[0]).redLockAddresses(args[0], args[1], args[2]).build();
        try (LockClient client = LockClient.create(config)) {
            lockAndUnlock(client.getLock("module-path:plain"), "plain");
            lockAndUnlock(client.getFairLock("module-path:fair"), "fair");
            lockAndUnlock(client.getRedLock("module-path:red"), "red");
        }
        System.out.println("OK");
    }

    private static void lockAndUnlock(DistributedLock lock, String kind) {
        lock.lock();
        try {
            check(lock.isHeldByCurrentThread(), "the " + kind + " lock is held after lock()");
        } finally {
            lock.unlock();
        }
        check(!lock.isLocked(), "the " + kind + " lock is free after unlock()");
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("failed: " + what);
        }
        System.out.println("ok: " + what);
    }
}
