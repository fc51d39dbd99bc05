package io.latchkey.faults;

/**
 * The faults the harness injects, in schedule order, each with what it may break by design: the
 * known limits the README lists. Any other violation fails the run; a stale write accepted is
 * never a known limit, since fencing tokens survive every fault here (the README's "Fencing tokens").
 */
enum Fault {
    /** Nothing: the baseline. */
    NONE("no fault", false, false),
    /** {@code kill -9} of a worker JVM, holders and waiters included; a new worker replaces it. */
    WORKER_KILL("kill -9 of a worker", false, false),
    /** A worker frozen for a sixth of its lease: the watchdog's next renewal is late, not missed. */
    WORKER_STOP_SHORT("worker SIGSTOP < lease - renewal", false, false),
    /**
     * A worker frozen between (lease − renewal period) and the lease: a lease renewed just before
     * the freeze survives it, one due just after runs out. Known limit: overlap.
     */
    WORKER_STOP_WINDOW("worker SIGSTOP in (lease - renewal, lease)", false, true),
    /** A worker frozen for one and a half leases: its holds run out. Known limit: overlap. */
    WORKER_STOP_LONG("worker SIGSTOP > lease", false, true),
    /** The lock's Redis frozen for half the command timeout. */
    REDIS_STOP_SHORT("Redis SIGSTOP < command timeout", true, false),
    /** The lock's Redis frozen for 1.4 command timeouts (still well inside the lease). */
    REDIS_STOP_LONG("Redis SIGSTOP > command timeout", true, false),
    /** {@code CLIENT KILL TYPE normal}: every command connection cut by Redis. */
    CLIENT_KILL_NORMAL("CLIENT KILL TYPE normal", false, false),
    /** {@code CLIENT KILL TYPE pubsub}: every subscription connection cut by Redis. */
    CLIENT_KILL_PUBSUB("CLIENT KILL TYPE pubsub", false, false),
    /** {@code DEBUG SLEEP} for 1.4 command timeouts: Redis busy, connections open. */
    DEBUG_SLEEP("DEBUG SLEEP > command timeout", true, false),
    /** Every connection through the fault proxy reset (TCP RST), replies in flight lost. */
    PROXY_RESET("connection reset (proxy RST)", false, false),
    /** The lock's Redis killed and restarted with its append-only file ({@code appendfsync always}). */
    RESTART_AOF("Redis kill -9, restart with AOF", true, false),
    /**
     * The lock's Redis killed and restarted empty: the holds and the fencing counters are gone.
     * Known limit: overlap (a holder inside while its hold is gone). The tokens go on from Redis's
     * clock, above every earlier one, so no stale write may be accepted.
     */
    RESTART_EMPTY("Redis kill -9, restart without AOF", true, true),
    /**
     * {@code FLUSHALL} on the lock's (first) master: holds and fencing counters deleted, Redis up.
     * Known limit: overlap, as for a restart without AOF; no stale write may be accepted.
     */
    FLUSHALL("FLUSHALL", false, true),
    /**
     * With {@code --topology sentinel}: the master killed, a replica promoted by the Sentinels, the
     * old master restarted as a replica. Known limit: asynchronous replication may lose the last
     * grants (overlap); a lost fencing-counter increment is made up by Redis's clock.
     */
    SENTINEL_FAILOVER("Sentinel failover (master kill -9)", true, true),
    /**
     * With {@code --topology sentinel}: the replica's link cut ({@code SIGSTOP} of the replica,
     * {@code CLIENT KILL TYPE replica} on the master) while the master goes on granting, then the
     * master killed and the replica, which missed those grants and counter increments, promoted.
     * Known limit: overlap; no stale write may be accepted.
     */
    SENTINEL_FAILOVER_LAGGING("Sentinel failover to a lagging replica", true, true),
    /**
     * With {@code --topology cluster}: a master killed, its replica promoted by the Cluster, the
     * old master restarted (it rejoins as a replica). Known limit as for the Sentinel failover.
     */
    CLUSTER_FAILOVER("Cluster failover (master kill -9)", true, true);

    final String label;
    /** Redis itself is down or frozen for a while: lock calls may fail, workers may stall. */
    final boolean redisDown;
    /** The entry/exit check may see two holders inside: a lease ran out under a frozen holder. */
    final boolean overlapIsKnownLimit;

    Fault(String label, boolean redisDown, boolean overlapIsKnownLimit) {
        this.label = label;
        this.redisDown = redisDown;
        this.overlapIsKnownLimit = overlapIsKnownLimit;
    }

    /** @return whether the harness can inject this fault into {@code redis} */
    boolean appliesTo(LockRedis redis) {
        switch (this) {
            case REDIS_STOP_SHORT:
            case REDIS_STOP_LONG:
                return redis.ownsProcess();
            case PROXY_RESET:
                return redis.hasProxy();
            case RESTART_AOF:
            case RESTART_EMPTY:
                return redis.ownsProcess() && redis.topology() == Topology.SINGLE;
            case FLUSHALL:
                // Never on a Redis given with --redis: it may hold someone's data.
                return redis.ownsProcess();
            case SENTINEL_FAILOVER:
            case SENTINEL_FAILOVER_LAGGING:
                return redis.topology() == Topology.SENTINEL;
            case CLUSTER_FAILOVER:
                return redis.topology() == Topology.CLUSTER;
            default:
                return true;
        }
    }
}
