package io.latchkey.internal.client;

import io.latchkey.internal.lock.LockKeys;
import java.util.Locale;
import java.util.Objects;

/**
 * What a lock name may be. Names are often user input (an order id, a tenant), and each one
 * becomes a Redis key and a part of log lines and exception messages, so a name that could
 * stand for one of the library's own keys, forge a log line, or map to the same Redis key as
 * another name is refused before anything is sent.
 */
final class LockNames {

    /**
     * Every key and channel the library derives from a name starts with the client's key prefix
     * and ':' (see LockKeys); this one, the default prefix's, stays reserved whatever the client's
     * prefix, so that a name never stands for a key of a client that kept the default.
     */
    static final String RESERVED_PREFIX = LockKeys.DEFAULT_PREFIX + ':';
    /** Far above any real name, far below what would bloat every message that quotes one. */
    static final int MAX_LENGTH = 1024;
    /** How much of a refused name its message quotes. */
    private static final int QUOTED = 64;

    private LockNames() {
    }

    /**
     * @param name a lock name
     * @return the name
     * @throws NullPointerException if it is null
     * @throws IllegalArgumentException as {@link #require(String, String)} with the default prefix
     */
    static String require(String name) {
        return require(name, LockKeys.DEFAULT_PREFIX);
    }

    /**
     * @param name a lock name
     * @param keyPrefix the client's key prefix, as LockConfig validated it
     * @return the name
     * @throws NullPointerException if it is null
     * @throws IllegalArgumentException if it is empty, longer than {@value #MAX_LENGTH} chars,
     *     starts with {@code keyPrefix + ":"} or {@value #RESERVED_PREFIX}, holds a control or
     *     line-separator character, or is not well-formed UTF-16 (a lone surrogate, which Redis
     *     would receive as '?', so that two names would share one key)
     */
    static String require(String name, String keyPrefix) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a lock name may have at most " + MAX_LENGTH + " characters, not "
                    + name.length() + ": " + quoted(name));
        }
        for (String reserved : new String[] {keyPrefix + ':', RESERVED_PREFIX}) {
            if (name.startsWith(reserved)) {
                throw new IllegalArgumentException("lock names starting with '" + reserved
                        + "' are reserved for the keys Latchkey derives from names: " + quoted(name));
            }
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                throw new IllegalArgumentException("a lock name must not hold control or line-separator characters: "
                        + String.format(Locale.ROOT, "U+%04X at index %d in ", (int) c, i) + quoted(name));
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("a lock name must be well-formed UTF-16: a lone surrogate "
                        + String.format(Locale.ROOT, "U+%04X at index %d in ", (int) c, i) + quoted(name));
            }
        }
        return name;
    }

    /** The start of a name, printable whatever it holds: what a message may quote of a refused one. */
    private static String quoted(String name) {
        StringBuilder out = new StringBuilder("'");
        int end = Math.min(name.length(), QUOTED);
        for (int i = 0; i < end; i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c) || Character.isSurrogate(c) || c == '\u2028' || c == '\u2029') {
                out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append(name.length() > QUOTED ? "'…" : "'").toString();
    }
}
