package io.latchkey.spi;

/**
 * The watchdog's renewal of one hold, for whoever started it: a {@link Hold} (which stops it
 * with its last watchdog level), or a kind that manages its lease itself (RedLock, on each master,
 * from {@link LockServer#register}). It lasts while the watchdog renews the hold with the lease it
 * was registered with, so that the registrant stops only its own renewal.
 */
public interface LeaseRegistration {

    /** @return true while the watchdog renews the hold with this registration's lease */
    boolean isActive();

    /** Stops renewing the hold if it is still renewed with this registration's lease. */
    void cancel();
}
