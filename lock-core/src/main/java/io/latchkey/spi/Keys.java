package io.latchkey.spi;

/**
 * The Redis names of one lock that a kind's scripts take: the lock hash at the lock's own name,
 * the unlock channel, the slot's fencing counter, and keys of the kind's own derived from the
 * name. Every one of them lies in the lock's Cluster hash slot whatever the name, so that a
 * script touching them runs on one node, and belongs to this lock alone (the fencing counter
 * excepted, which every lock of the slot shares), so that two locks never share a queue or a
 * channel. A kind gets them from {@link LockServer#keys(String)}, under the client's key
 * prefix. Immutable.
 */
public interface Keys {

    /** @return the lock hash: field {@code <clientId>:<ownerId>} to hold count; the name itself */
    String lock();

    /** @return the unlock channel */
    String channel();

    /**
     * @return the fencing counter of the lock's hash slot, which every acquire script advances
     *     for each new hold of any lock in the slot, and which never expires
     */
    String fenceCounter();

    /**
     * @param suffix what the key holds, e.g. {@code queue}: not empty, no '{', '}' or ':'
     * @return the key of that name for this lock, in the lock's slot
     * @throws IllegalArgumentException if the suffix is empty or holds a brace or a ':', which
     *     could make the keys of two locks coincide
     */
    String derived(String suffix);
}
