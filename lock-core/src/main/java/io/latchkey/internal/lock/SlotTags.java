package io.latchkey.internal.lock;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;

/**
 * For every Redis Cluster hash slot, one short hash tag that maps to it: the shortest string of
 * ASCII digits and letters whose slot it is, and of those the first in ASCII order. The rule is
 * part of the data layout (every client must derive the same keys for a name), so it must never
 * change; the README states it.
 *
 * <p>The table is searched once per JVM, on the first name that needs it (about 240,000 CRC16
 * sums of at most three bytes, a few milliseconds), and kept as one {@code int} per slot.
 * Thread-safe.
 */
final class SlotTags {

    /** The number of hash slots of every Redis Cluster. */
    static final int SLOTS = SlotHash.SLOT_COUNT;

    /** In ASCII order, so that counting up in this base enumerates strings in ASCII order. */
    private static final String ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    /** Three characters give ~240,000 candidates, which reach every slot (LockKeysTest checks). */
    private static final int LONGEST = 3;

    private SlotTags() {
    }

    /**
     * @param slot a hash slot, 0 to 16383
     * @return the slot's tag, which hashes to {@code slot}
     */
    static String of(int slot) {
        return unpack(Table.PACKED[slot]);
    }

    /** Built on first use: class initialisation makes that lazy and thread-safe. */
    private static final class Table {
        /** Per slot, its tag's characters packed one per byte, the first in the lowest. */
        static final int[] PACKED = search();
    }

    private static int[] search() {
        int[] packed = new int[SLOTS];
        int found = 0;
        for (int length = 1; length <= LONGEST && found < SLOTS; length++) {
            byte[] candidate = new byte[length];
            int combinations = (int) Math.pow(ALPHABET.length(), length);
            for (int n = 0; n < combinations && found < SLOTS; n++) {
                int rest = n;
                for (int i = length - 1; i >= 0; i--) {
                    candidate[i] = (byte) ALPHABET.charAt(rest % ALPHABET.length());
                    rest /= ALPHABET.length();
                }
                int slot = SlotHash.getSlot(candidate);
                if (packed[slot] == 0) {
                    packed[slot] = pack(candidate);
                    found++;
                }
            }
        }
        if (found < SLOTS) {
            throw new IllegalStateException("no tag of at most " + LONGEST + " characters for "
                    + (SLOTS - found) + " hash slots");
        }
        return packed;
    }

    private static int pack(byte[] ascii) {
        int packed = 0;
        for (int i = ascii.length - 1; i >= 0; i--) {
            packed = packed << 8 | ascii[i];
        }
        return packed;
    }

    private static String unpack(int packed) {
        byte[] ascii = new byte[LONGEST];
        int length = 0;
        for (int rest = packed; rest != 0; rest >>>= 8) {
            ascii[length++] = (byte) (rest & 0xff);
        }
        return new String(ascii, 0, length, StandardCharsets.US_ASCII);
    }
}
