package io.latchkey.internal.lock;

import io.latchkey.spi.Keys;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Redis names of one lock: the hash at the lock's own name, and derived keys and channels
 * ({@code latchkey:{tag}:...}) that share its Cluster hash slot, so that every script touches a
 * single slot, and that belong to this name alone, so that two locks never share a queue or a
 * channel.
 *
 * <p>{@code latchkey} is the default key prefix; a client configured with another prefix
 * {@code P} ({@code LockConfig.keyPrefix()}) derives {@code P:{tag}:...} and {@code P:fence:{S}}
 * instead, so that applications sharing one Redis can be kept apart by ACL key and channel
 * patterns ({@code ~P:* &P:*}). Everything below holds for any prefix, because a valid prefix
 * holds no brace: the hash tag of a derived key is still what follows <code>P:&#123;</code>.
 *
 * <p>Redis Cluster hashes the text between a key's first '{' and the next '}' after it, if that
 * text is not empty (the hash tag), else the whole key. A derived key starts with
 * <code>latchkey:&#123;</code>, so its hash tag is whatever stands between that brace and the
 * next '}'. Three cases follow, by the name {@code N}:
 * <ul>
 *   <li>{@code N} has no hash tag and no '}' (a plain name, the common case):
 *       {@code latchkey:{N}:suffix}. The tag is the whole name, which Redis hashes for the lock
 *       too.
 *   <li>{@code N} has a hash tag {@code T}: {@code latchkey:{T}:N:suffix}. {@code T} holds no
 *       '}' by definition. The name follows the tag because several names may share {@code T}.
 *   <li>{@code N} has no hash tag but a '}' (such as <code>job&#125;1</code> or
 *       <code>order-&#123;&#125;x</code>), or is empty: no tag can hold {@code N} itself, since a
 *       tag ends at its first '}'. The tag is {@link SlotTags the short tag of N's slot}
 *       instead: {@code latchkey:{S}:N:suffix}.
 * </ul>
 * Distinct names never share a derived key: a suffix holds no brace and no ':', so the key ends
 * in {@code :suffix} and the rest names the lock (a plain name is the tag itself and holds no
 * '}'; the other two cases spell the name out, and it holds a '}' or is empty).
 *
 * <p>One key per hash slot is not any lock's: the slot's fencing counter,
 * {@code latchkey:fence:{S}} with {@code S} the {@link SlotTags short tag} of the slot. It never
 * starts with <code>latchkey:&#123;</code>, so it is never a derived key, and it is shared by
 * every lock name in the slot, so an idle lock leaves no key of its own behind. Immutable.
 */
public final class LockKeys implements Keys {

    /** The prefix of a client that sets none. */
    public static final String DEFAULT_PREFIX = "latchkey";

    private final String lock;
    private final String tag;
    /** Everything of a derived key before its suffix. */
    private final String stem;
    private final String fenceCounter;
    /**
     * The derived keys that every acquisition asks for (a waiter's join looks its channel up by
     * name), made once: a new string per call cost its hash and a copy each time.
     */
    private final String channel;
    private final String waitingMark;
    private final String turn;

    private LockKeys(String lock, String tag, String stem, String prefix) {
        this.lock = lock;
        this.tag = tag;
        this.stem = stem;
        this.channel = stem + "channel";
        this.waitingMark = stem + "waiting";
        this.turn = stem + "turn";
        this.fenceCounter = prefix + ":fence:{" + SlotTags.of(SlotHash.getSlot(lock.getBytes(StandardCharsets.UTF_8))) + '}';
    }

    /**
     * @param name a lock name, any string; not null
     * @return its keys under the {@link #DEFAULT_PREFIX default prefix}
     */
    public static LockKeys of(String name) {
        return of(name, DEFAULT_PREFIX);
    }

    /**
     * @param name a lock name, any string; not null
     * @param prefix the key prefix, as {@code LockConfig} validates it (not empty, no brace, no
     *     whitespace or control character, no ':' at the end); not null
     * @return its keys under that prefix
     */
    public static LockKeys of(String name, String prefix) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(prefix, "prefix");
        String start = prefix + ":{";
        String own = hashTag(name);
        if (own != null) {
            return new LockKeys(name, own, start + own + "}:" + name + ':', prefix);
        }
        if (!name.isEmpty() && name.indexOf('}') < 0) {
            return new LockKeys(name, name, start + name + "}:", prefix);
        }
        String slotTag = SlotTags.of(SlotHash.getSlot(name.getBytes(StandardCharsets.UTF_8)));
        return new LockKeys(name, slotTag, start + slotTag + "}:" + name + ':', prefix);
    }

    /** @return the lock hash: field {@code <clientId>:<ownerId>} to hold count; the name itself */
    @Override
    public String lock() {
        return lock;
    }

    /**
     * @return the fencing counter of the lock's hash slot: a string that the acquire scripts
     *     advance to max(counter + 1, Redis TIME in µs) for every new hold of any lock in the
     *     slot, and that never expires
     */
    @Override
    public String fenceCounter() {
        return fenceCounter;
    }

    /** @return the hash tag of every derived key, which maps to the lock's slot */
    public String tag() {
        return tag;
    }

    /** @return the unlock channel, {@link #derived(String) derived} with suffix {@code channel} */
    @Override
    public String channel() {
        return channel;
    }

    /** @return with local hand-off, the client whose try found the lock held, {@link #derived(String) derived} with suffix {@code waiting} */
    public String waitingMark() {
        return waitingMark;
    }

    /** @return with local hand-off, the client a release reserved the lock for, {@link #derived(String) derived} with suffix {@code turn} */
    public String turn() {
        return turn;
    }

    /**
     * @param suffix what the key holds, e.g. {@code queue}: not empty, no '{', '}' or ':'
     * @return the key of that name for this lock, in the lock's slot
     * @throws IllegalArgumentException if the suffix is empty or holds a brace or a ':', which
     *     could make the keys of two locks coincide
     */
    @Override
    public String derived(String suffix) {
        if (suffix.isEmpty() || suffix.indexOf('{') >= 0 || suffix.indexOf('}') >= 0 || suffix.indexOf(':') >= 0) {
            throw new IllegalArgumentException("a key suffix must be a non-empty word without braces or ':': " + suffix);
        }
        return stem + suffix;
    }

    /** @return Redis Cluster's hash tag of the name: the text between the first '{' and the next '}', or null if none or empty */
    private static @Nullable String hashTag(String name) {
        int open = name.indexOf('{');
        if (open >= 0) {
            int close = name.indexOf('}', open + 1);
            if (close > open + 1) {
                return name.substring(open + 1, close);
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "LockKeys{" + lock + " -> " + stem + "...}";
    }
}
