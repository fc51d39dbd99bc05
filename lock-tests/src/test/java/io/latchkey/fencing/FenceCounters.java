package io.latchkey.fencing;

import io.lettuce.core.cluster.SlotHash;

/**
 * Where the README says the fencing counters live, worked out here independently of the library:
 * one string key {@code latchkey:fence:{S}} per Redis Cluster hash slot, where {@code S} is the
 * slot's short tag, the shortest string of ASCII digits and letters whose slot it is (of those,
 * the first in ASCII order).
 */
public final class FenceCounters {

    private static final String ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final String[] TAGS = searchTags();

    private FenceCounters() {
    }

    /** @return the counter key of the slot of the lock named {@code lockName} */
    public static String keyOf(String lockName) {
        return keyOfSlot(SlotHash.getSlot(lockName));
    }

    /** @return the counter key of {@code slot} */
    public static String keyOfSlot(int slot) {
        return "latchkey:fence:{" + TAGS[slot] + "}";
    }

    private static String[] searchTags() {
        String[] tags = new String[SlotHash.SLOT_COUNT];
        int found = 0;
        // Counting up, length by length: strings of one length come in ASCII order.
        for (int length = 1; found < tags.length; length++) {
            int[] digits = new int[length];
            while (true) {
                StringBuilder tag = new StringBuilder(length);
                for (int digit : digits) {
                    tag.append(ALPHABET.charAt(digit));
                }
                int slot = SlotHash.getSlot(tag.toString());
                if (tags[slot] == null) {
                    tags[slot] = tag.toString();
                    found++;
                }
                int position = length - 1;
                while (position >= 0 && ++digits[position] == ALPHABET.length()) {
                    digits[position--] = 0;
                }
                if (position < 0) {
                    break;
                }
            }
        }
        return tags;
    }
}
