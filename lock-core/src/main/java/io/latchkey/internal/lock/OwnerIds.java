package io.latchkey.internal.lock;

/**
 * The owner ids the client keeps for itself: the bottom {@code 2^32} of the long range, which
 * thread ids never reach. A client with local hand-off holds a lock in Redis under such an id for
 * its owners; an application that passed one to the async methods could release or re-enter that
 * hold, so the API refuses them.
 */
public final class OwnerIds {

    /** How many ids are reserved. */
    public static final long RESERVED = 1L << 32;
    private static final long FIRST_FREE = Long.MIN_VALUE + RESERVED;

    private OwnerIds() {
    }

    /**
     * @param ownerId an owner id
     * @return true if the client keeps it for itself
     */
    public static boolean isReserved(long ownerId) {
        return ownerId < FIRST_FREE;
    }

    /**
     * @param sequence any number
     * @return a reserved id; {@code 2^32} consecutive numbers give distinct ids
     */
    public static long reserved(long sequence) {
        return Long.MIN_VALUE + Math.floorMod(sequence, RESERVED);
    }

    /**
     * @param ownerId an owner id that an application passed
     * @return the id
     * @throws IllegalArgumentException if the client keeps it for itself
     */
    public static long requireApplicationOwner(long ownerId) {
        if (isReserved(ownerId)) {
            throw new IllegalArgumentException("ownerId " + ownerId + " is reserved for the client's own use: "
                    + "owner ids below Long.MIN_VALUE + 2^32 (" + FIRST_FREE + ") are refused");
        }
        return ownerId;
    }
}
