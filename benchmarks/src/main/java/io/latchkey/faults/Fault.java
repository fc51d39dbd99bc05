package io.latchkey.faults;

/**
 * The faults the harness injects, in schedule order, each with what it may break by design: the
 * known limits the README lists. Any other violation fails the run.
 */
enum Fault {
    /** Nothing: the baseline. */
    NONE("no fault", false, false, false),
    /** {@code kill -9} of a worker JVM, holders and waiters included; a new worker replaces it. */
    WORKER_KILL("kill -9 of a worker", false, false, false),
    /** A worker frozen for a sixth of its lease: the watchdog's next renewal is late, not missed. */
    WORKER_STOP_SHORT("worker SIGSTOP < lease - renewal", false, false, false),
    /**
     * A worker frozen between (lease − renewal period) and the lease: a lease renewed just before
     * the freeze survives it, one due just after runs out. Known limit: overlap.
     */
    WORKER_STOP_WINDOW("worker SIGSTOP in (lease - renewal, lease)", false, true, false),
    /** A worker frozen for one and a half leases: its holds run out. Known limit: overlap. */
    WORKER_STOP_LONG("worker SIGSTOP > lease", false, true, false),
    /** The lock's Redis frozen for half the command timeout. */
    REDIS_STOP_SHORT("Redis SIGSTOP < command timeout", true, false, false),
    /** The lock's Redis frozen for 1.4 command timeouts (still well inside the lease). */
    REDIS_STOP_LONG("Redis SIGSTOP > command timeout", true, false, false),
    /** {@code CLIENT KILL TYPE normal}: every command connection cut by Redis. */
    CLIENT_KILL_NORMAL("CLIENT KILL TYPE normal", false, false, false),
    /** {@code CLIENT KILL TYPE pubsub}: every subscription connection cut by Redis. */
    CLIENT_KILL_PUBSUB("CLIENT KILL TYPE pubsub", false, false, false),
    /** {@code DEBUG SLEEP} for 1.4 command timeouts: Redis busy, connections open. */
    DEBUG_SLEEP("DEBUG SLEEP > command timeout", true, false, false),
    /** Every connection through the fault proxy reset (TCP RST), replies in flight lost. */
    PROXY_RESET("connection reset (proxy RST)", false, false, false),
    /** The lock's Redis killed and restarted with its append-only file ({@code appendfsync always}). */
    RESTART_AOF("Redis kill -9, restart with AOF", true, false, false),
    /**
     * The lock's Redis killed and restarted empty: the holds and the fencing counters are gone.
     * Known limits: overlap, and fencing tokens handed out again.
     */
    RESTART_EMPTY("Redis kill -9, restart without AOF", true, true, true),
    /**
     * With {@code --topology sentinel}: the master killed, a replica promoted by the Sentinels, the
     * old master restarted as a replica. Known limits: asynchronous replication may lose the last
     * grants (overlap) and the last fencing-counter increments (tokens handed out again).
     */
    SENTINEL_FAILOVER("Sentinel failover (master kill -9)", true, true, true),
    /**
     * With {@code --topology cluster}: a master killed, its replica promoted by the Cluster, the
     * old master restarted (it rejoins as a replica). Known limits as for the Sentinel failover.
     */
    CLUSTER_FAILOVER("Cluster failover (master kill -9)", true, true, true);

    final String label;
    /** Redis itself is down or frozen for a while: lock calls may fail, workers may stall. */
    final boolean redisDown;
    /** The entry/exit check may see two holders inside: a lease ran out under a frozen holder. */
    final boolean overlapIsKnownLimit;
    /** A stale write may be accepted: tokens were handed out again. */
    final boolean staleAcceptIsKnownLimit;

    Fault(String label, boolean redisDown, boolean overlapIsKnownLimit, boolean staleAcceptIsKnownLimit) {
        this.label = label;
        this.redisDown = redisDown;
        this.overlapIsKnownLimit = overlapIsKnownLimit;
        this.staleAcceptIsKnownLimit = staleAcceptIsKnownLimit;
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
            case SENTINEL_FAILOVER:
                return redis.topology() == Topology.SENTINEL;
            case CLUSTER_FAILOVER:
                return redis.topology() == Topology.CLUSTER;
            default:
                return true;
        }
    }
}
