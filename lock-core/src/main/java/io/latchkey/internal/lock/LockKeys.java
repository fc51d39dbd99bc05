package io.latchkey.internal.lock;

/**
 * The Redis names of one lock: the hash at the lock's own name, and derived keys that share its
 * Cluster hash slot ({@code latchkey:{tag}:suffix}, with the tag the name's own hash tag if it
 * has one, else the whole name), so that every script touches a single slot.
 *
 * @param lock the lock hash: field {@code <clientId>:<ownerId>} to hold count
 * @param tag the hash tag shared by every key of the lock
 */
public record LockKeys(String lock, String tag) {

    /**
     * @param name a lock name, not empty
     * @return its keys
     */
    public static LockKeys of(String name) {
        return new LockKeys(name, hashTag(name));
    }

    /** @return the unlock channel, {@code latchkey:{tag}:channel} */
    public String channel() {
        return derived("channel");
    }

    /**
     * @param suffix what the key holds, e.g. {@code queue}
     * @return {@code latchkey:{tag}:suffix}
     */
    public String derived(String suffix) {
        return "latchkey:{" + tag + "}:" + suffix;
    }

    /** Redis Cluster's rule: the text between the first '{' and the next '}', if not empty. */
    private static String hashTag(String name) {
        int open = name.indexOf('{');
        if (open >= 0) {
            int close = name.indexOf('}', open + 1);
            if (close > open + 1) {
                return name.substring(open + 1, close);
            }
        }
        return name;
    }
}
