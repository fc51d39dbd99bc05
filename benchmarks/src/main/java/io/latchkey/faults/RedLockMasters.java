package io.latchkey.faults;

import io.latchkey.testing.RedisServer;
import java.util.ArrayList;
import java.util.List;

/**
 * The RedLock's three independent masters: the lock's Redis, as the workers reach it (through
 * its proxy), and two more started here without persistence, which the harness never faults, so
 * that every fault aimed at the lock's Redis hits a minority of the RedLock's masters. Only with
 * one server: the Sentinel and Cluster shapes have no independent masters to offer.
 */
final class RedLockMasters implements AutoCloseable {

    private final String first;
    private final List<RedisServer> others = new ArrayList<>();

    private RedLockMasters(String first) {
        this.first = first;
    }

    /** Starts the two masters that join {@code lockRedis}. */
    static RedLockMasters start(LockRedis lockRedis) {
        if (lockRedis.topology() != Topology.SINGLE) {
            throw new IllegalStateException("RedLock masters need one server, not a " + lockRedis.topology().key());
        }
        RedLockMasters masters = new RedLockMasters(lockRedis.workerUri());
        try {
            for (int i = 0; i < 2; i++) {
                masters.others.add(RedisServer.start(LockRedis.serverArgs(false)));
            }
            return masters;
        } catch (RuntimeException e) {
            masters.close();
            throw e;
        }
    }

    /** @return the masters as the workers address them, the lock's Redis first */
    List<String> uris() {
        List<String> uris = new ArrayList<>();
        uris.add(first);
        others.forEach(master -> uris.add(master.uri()));
        return uris;
    }

    String description() {
        return first + " (the lock's Redis, faulted), " + others.get(0).uri() + " and " + others.get(1).uri()
                + " (no persistence, no faults)";
    }

    /**
     * @return the scripts ({@code EVALSHA} and {@code EVAL}) that the two unfaulted masters ran,
     *     on average: they serve nothing but the RedLocks
     */
    long scriptCallsPerMaster() {
        long calls = 0;
        for (RedisServer master : others) {
            for (String command : new String[] {"cmdstat_evalsha", "cmdstat_eval"}) {
                String stats = master.info("commandstats", command).orElse("");
                for (String part : stats.split(",")) {
                    if (part.startsWith("calls=")) {
                        calls += Long.parseLong(part.substring("calls=".length()));
                    }
                }
            }
        }
        return calls / Math.max(1, others.size());
    }

    @Override
    public void close() {
        others.forEach(RedisServer::close);
    }
}
