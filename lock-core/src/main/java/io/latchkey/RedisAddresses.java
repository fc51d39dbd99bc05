package io.latchkey;

import static io.latchkey.LockConfig.Builder.requireArgument;

import io.latchkey.internal.redis.Redaction;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rules for where a {@link LockConfig} points: one Redis (a single server or Sentinel group,
 * or a Cluster) and/or at least three independent RedLock masters, each a URI that Lettuce can
 * parse and whose credentials cannot be misread as a host. Messages never show a password.
 */
final class RedisAddresses {

    static final int MIN_RED_LOCK_MASTERS = 3;

    private RedisAddresses() {
    }

    /**
     * @param address the single-server or Sentinel URI, or null
     * @param clusterAddresses the Cluster seed URIs; empty for none
     * @param redLockAddresses the RedLock masters' URIs; empty for none
     * @throws IllegalArgumentException if none is set, both a single address and a cluster are
     *     set, fewer than three RedLock masters or one twice are given, or a URI is malformed
     */
    static void check(@Nullable String address, List<String> clusterAddresses, List<String> redLockAddresses) {
        requireArgument(address != null || !clusterAddresses.isEmpty() || !redLockAddresses.isEmpty(),
                "no Redis configured: set address, clusterAddresses or redLockAddresses");
        requireArgument(address == null || clusterAddresses.isEmpty(),
                "address and clusterAddresses are exclusive: got %s and %s",
                address == null ? null : Redaction.uri(address), Redaction.uris(clusterAddresses));
        requireArgument(redLockAddresses.isEmpty() || redLockAddresses.size() >= MIN_RED_LOCK_MASTERS,
                "redLockAddresses needs at least %s independent masters, got %s",
                MIN_RED_LOCK_MASTERS, redLockAddresses.size());
        // The same master twice would count its vote twice.
        redLockAddresses.stream().filter(uri -> redLockAddresses.indexOf(uri) != redLockAddresses.lastIndexOf(uri))
                .findFirst().ifPresent(uri -> requireArgument(false, "redLockAddresses must be independent masters, got %s twice", Redaction.uri(uri)));
        if (address != null) {
            requireUri("address", address);
        }
        clusterAddresses.forEach(uri -> requireUri("clusterAddresses", uri));
        redLockAddresses.forEach(uri -> requireUri("redLockAddresses", uri));
    }

    private static void requireUri(String setting, String uri) {
        int scheme = uri.indexOf("://");
        int credentialsEnd = uri.lastIndexOf('@');
        if (scheme >= 0 && credentialsEnd > scheme) {
            String credentials = uri.substring(scheme + 3, credentialsEnd);
            // Unencoded, these end the authority: the password's start became the host name,
            // and the rest went to a DNS query.
            requireArgument(credentials.chars().noneMatch(c -> c == '#' || c == '?' || c == '/'),
                    "%s has '#', '?' or '/' in its user name or password: percent-encode them (%%23, %%3F, %%2F): %s",
                    setting, Redaction.uri(uri));
        }
        try {
            RedisURI.create(uri);
        } catch (RuntimeException e) {
            // Not chained: the parser's message repeats the URI, password included.
            throw new IllegalArgumentException(setting + " is not a Redis URI: " + Redaction.uri(uri)
                    + " (" + e.getClass().getSimpleName() + ")");
        }
    }
}
