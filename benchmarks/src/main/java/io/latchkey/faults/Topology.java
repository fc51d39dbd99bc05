package io.latchkey.faults;

import java.util.Locale;

/** The shapes of the lock's Redis that the harness starts ({@code --topology}). */
enum Topology {
    /** One {@code redis-server}, behind a fault proxy. */
    SINGLE,
    /** A master, a replica and three Sentinels. */
    SENTINEL,
    /** Three masters with a replica each. */
    CLUSTER;

    /** @return the option's value for this topology */
    String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
