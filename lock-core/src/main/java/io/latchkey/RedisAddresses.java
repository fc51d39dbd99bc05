package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import io.latchkey.internal.redis.Redaction;
import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link LockClient}'s Redis is: one Redis (a single server or Sentinel group, or a
 * Cluster) and/or at least three independent RedLock masters, each a URI that Lettuce can parse
 * and whose credentials cannot be misread as a host. Messages and {@link #toString()} never show
 * a password.
 *
 * <p>On a Cluster, each lock lives on the master of its name's hash slot (all of a lock's keys
 * share it); the client follows MOVED and ASK redirections, refreshes its view of the cluster
 * after redirections, reconnects and failovers, and sends unlock messages by sharded pub/sub when
 * every master runs Redis 7 or newer, classic pub/sub otherwise. Credentials and TLS of the first
 * seed URI apply to every node. Immutable and thread-safe.
 */
public final class RedisAddresses {

    static final int MIN_RED_LOCK_MASTERS = 3;

    private final Optional<String> address;
    private final List<String> cluster;
    private final List<String> redLock;

    private RedisAddresses(Optional<String> address, List<String> cluster, List<String> redLock) {
        this.address = address;
        this.cluster = cluster;
        this.redLock = redLock;
    }

    /**
     * @param address the single-server or Sentinel URI, or null
     * @param clusterAddresses the Cluster seed URIs; empty for none
     * @param redLockAddresses the RedLock masters' URIs; empty for none
     * @return the addresses, checked
     * @throws IllegalArgumentException if none is set, both a single address and a cluster are
     *     set, fewer than three RedLock masters or one twice are given, or a URI is malformed
     */
    static RedisAddresses of(@Nullable String address, List<String> clusterAddresses, List<String> redLockAddresses) {
        check(address, clusterAddresses, redLockAddresses);
        return new RedisAddresses(Optional.ofNullable(address), clusterAddresses, redLockAddresses);
    }

    /** {@return the single-server or Sentinel URI, if one was given} */
    public Optional<String> address() {
        return address;
    }

    /** {@return the Redis Cluster seed URIs; empty unless a cluster was configured} */
    public List<String> cluster() {
        return cluster;
    }

    /** {@return the independent masters used by {@link LockClient#getRedLock(String)}; may be empty} */
    public List<String> redLock() {
        return redLock;
    }

    /**
     * {@return where the client's Redis is, fit to show in a log line or a health detail: the
     * URI, {@code cluster [URIs]} or {@code redlock [URIs]}, each without its credentials}
     */
    public String target() {
        if (address.isPresent()) {
            return Redaction.uri(address.get());
        }
        if (!cluster.isEmpty()) {
            return "cluster " + Redaction.uris(cluster);
        }
        return "redlock " + Redaction.uris(redLock);
    }

    @Override
    public String toString() {
        return "address=" + address.map(Redaction::uri).orElse("none") + ", clusterAddresses=" + Redaction.uris(cluster)
                + ", redLockAddresses=" + Redaction.uris(redLock);
    }

    private static void check(@Nullable String address, List<String> clusterAddresses, List<String> redLockAddresses) {
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
