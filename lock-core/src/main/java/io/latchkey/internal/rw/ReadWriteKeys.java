package io.latchkey.internal.rw;

import io.latchkey.internal.lock.LockKeys;

/**
 * The Redis names of one read-write lock, all in the hash slot of its name (see {@link LockKeys}).
 *
 * @param lock the lock hash, at the name itself: the holds' counts, call ids and tokens, the mode
 *     and the writer
 * @param leases the sorted set of hold field to the end of its lease
 * @param writers the sorted set of waiting writer field to the end of its place
 * @param channel the writers' wake-up channel, the name's unlock channel
 * @param readChannel the readers' wake-up channel
 * @param fenceCounter the fencing counter of the slot, shared with every lock kind
 */
record ReadWriteKeys(String lock, String leases, String writers, String channel, String readChannel,
                     String fenceCounter) {

    /**
     * @param keys the lock name's keys, under the client's prefix
     * @return the read-write lock's keys among them
     */
    static ReadWriteKeys of(LockKeys keys) {
        return new ReadWriteKeys(keys.lock(), keys.derived("leases"), keys.derived("writers"), keys.channel(),
                keys.derived("read-channel"), keys.fenceCounter());
    }
}
