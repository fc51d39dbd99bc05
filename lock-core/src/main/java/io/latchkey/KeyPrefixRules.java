package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import java.util.Locale;
import java.util.Objects;

/**
 * What a {@link LockConfig#keyPrefix()} may hold: it goes into every derived key, into the Cluster
 * hash tag's neighbourhood and into the ACL patterns {@code ~P:*} and {@code &P:*}, so anything
 * that would change a hash slot, read as a glob, or reach Redis altered is refused.
 */
final class KeyPrefixRules {

    /** Far above a real application name, short enough that every derived key stays close to its lock name's length. */
    static final int MAX_KEY_PREFIX_LENGTH = 64;

    private KeyPrefixRules() {
    }

    /**
     * @param prefix the prefix to check
     * @return the prefix, which follows every rule of {@link LockConfig.Builder#keyPrefix(String)}
     * @throws IllegalArgumentException if it breaks one
     * @throws NullPointerException if it is null
     */
    static String requireValid(String prefix) {
        Objects.requireNonNull(prefix, "keyPrefix");
        requireArgument(!prefix.isEmpty(), "keyPrefix must not be empty");
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < prefix.length() && Character.isLowSurrogate(prefix.charAt(i + 1))) {
                i++;
                continue;
            }
            // A lone surrogate would reach Redis as '?', so that two prefixes would share keys.
            requireArgument(!(Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)
                            || Character.getType(c) == Character.FORMAT || Character.isSurrogate(c)),
                    "keyPrefix must not hold whitespace, control characters or a lone surrogate: U+%04X at index %s in %s",
                    (int) c, i, escaped(prefix));
            // The prefix goes into the ACL patterns ~P:* and &P:*, which are globs: a wildcard
            // in it would give one application's user another application's keys.
            if ("*?[]\\".indexOf(c) >= 0) {
                throw new IllegalArgumentException("keyPrefix must not hold the glob characters * ? [ ] \\, "
                        + "which ACL patterns and SCAN read as wildcards: '" + prefix + "'");
            }
        }
        requireArgument(prefix.length() <= MAX_KEY_PREFIX_LENGTH, "keyPrefix may have at most %s characters, not %s: '%s…'",
                MAX_KEY_PREFIX_LENGTH, prefix.length(), prefix.length() > MAX_KEY_PREFIX_LENGTH ? prefix.substring(0, MAX_KEY_PREFIX_LENGTH) : prefix);
        requireArgument(prefix.indexOf('{') < 0 && prefix.indexOf('}') < 0,
                "keyPrefix must not hold '{' or '}', which would change the Cluster hash slot of every derived key: '%s'", prefix);
        requireArgument(!prefix.endsWith(":"), "keyPrefix must not end with ':', which the keys add: '%s'", prefix);
        return prefix;
    }

    /** The prefix, printable whatever it holds: what a message may quote of a refused one. */
    private static String escaped(String prefix) {
        StringBuilder out = new StringBuilder("'");
        prefix.chars().forEach(c -> {
            if (Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)
                    || Character.isSurrogate((char) c) || Character.getType(c) == Character.FORMAT) {
                out.append(String.format(Locale.ROOT, "\\u%04X", c));
            } else {
                out.append((char) c);
            }
        });
        return out.append('\'').toString();
    }
}
