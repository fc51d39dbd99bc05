package io.latchkey;

import io.lettuce.core.RedisURI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable configuration of a {@link LockClient}: where Redis is and how long things may take.
 *
 * <p>Build one with {@link #builder()}; {@link Builder#build()} rejects nonsense with an
 * {@link IllegalArgumentException} that names the setting and the value. Thread-safe.
 */
public final class LockConfig {

    static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    static final Duration DEFAULT_FAIR_LOCK_WAIT_TIMEOUT = Duration.ofMinutes(5);
    static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    static final Duration DEFAULT_RED_LOCK_ATTEMPT_TIMEOUT = Duration.ofMillis(100);
    static final int MIN_RED_LOCK_MASTERS = 3;

    private final Optional<String> address;
    private final List<String> clusterAddresses;
    private final List<String> redLockAddresses;
    private final Duration watchdogTimeout;
    private final Duration fairLockWaitTimeout;
    private final Duration commandTimeout;
    private final Duration redLockAttemptTimeout;
    private final Optional<Path> trustedCertificates;

    private LockConfig(Builder builder) {
        this.address = Optional.ofNullable(builder.address);
        this.clusterAddresses = builder.clusterAddresses;
        this.redLockAddresses = builder.redLockAddresses;
        this.watchdogTimeout = builder.watchdogTimeout;
        this.fairLockWaitTimeout = builder.fairLockWaitTimeout;
        this.commandTimeout = builder.commandTimeout;
        this.redLockAttemptTimeout = builder.redLockAttemptTimeout;
        this.trustedCertificates = Optional.ofNullable(builder.trustedCertificates);
    }

    /** @return a builder with the defaults: 30 s watchdog lease, 5 min fair wait timeout, 3 s command timeout */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the single-server or Sentinel URI, if one was given */
    public Optional<String> address() {
        return address;
    }

    /** @return the Redis Cluster seed URIs; empty unless a cluster was configured */
    public List<String> clusterAddresses() {
        return clusterAddresses;
    }

    /** @return the independent masters used by {@link LockClient#getRedLock(String)}; may be empty */
    public List<String> redLockAddresses() {
        return redLockAddresses;
    }

    /** @return the lease of locks taken without one; renewed every third of it while held */
    public Duration watchdogTimeout() {
        return watchdogTimeout;
    }

    /** @return how long a fair-lock waiter may go without retrying before it is evicted from the queue */
    public Duration fairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    /** @return the bound on one Redis round trip */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** @return the bound on one RedLock master's answer to an acquire, far below any lease */
    public Duration redLockAttemptTimeout() {
        return redLockAttemptTimeout;
    }

    /**
     * @return the PEM file of the certificates that {@code rediss://} connections trust, if one
     *     was given; without it the JVM's default trust store decides
     */
    public Optional<Path> trustedCertificates() {
        return trustedCertificates;
    }

    @Override
    public String toString() {
        return "LockConfig{address=" + address.map(LockConfig::redact).orElse("none")
                + ", clusterAddresses=" + clusterAddresses.stream().map(LockConfig::redact).toList()
                + ", redLockAddresses=" + redLockAddresses.stream().map(LockConfig::redact).toList()
                + ", watchdogTimeout=" + watchdogTimeout
                + ", fairLockWaitTimeout=" + fairLockWaitTimeout
                + ", commandTimeout=" + commandTimeout
                + ", redLockAttemptTimeout=" + redLockAttemptTimeout
                + ", trustedCertificates=" + trustedCertificates.map(Path::toString).orElse("JVM default") + '}';
    }

    /** Keeps passwords out of logs. */
    private static String redact(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }

    /** Collects settings; not thread-safe. Every setter rejects null at once. */
    public static final class Builder {

        private String address;
        private List<String> clusterAddresses = List.of();
        private List<String> redLockAddresses = List.of();
        private Duration watchdogTimeout = DEFAULT_WATCHDOG_TIMEOUT;
        private Duration fairLockWaitTimeout = DEFAULT_FAIR_LOCK_WAIT_TIMEOUT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration redLockAttemptTimeout = DEFAULT_RED_LOCK_ATTEMPT_TIMEOUT;
        private Path trustedCertificates;

        private Builder() {
        }

        /**
         * @param redisUri one server ({@code redis://host:port}, {@code rediss://} for TLS,
         *     {@code redis://user:password@host}) or a Sentinel group
         *     ({@code redis-sentinel://host:26379,host2:26379/0#mymaster}); not null
         * @return this builder
         */
        public Builder address(String redisUri) {
            this.address = Objects.requireNonNull(redisUri, "redisUri");
            return this;
        }

        /**
         * Points the client at a Redis Cluster. Each lock lives on the master of its name's hash
         * slot (all of a lock's keys share it); the client follows MOVED and ASK redirections,
         * refreshes its view of the cluster after redirections, reconnects and failovers, and
         * sends unlock messages by sharded pub/sub when every master runs Redis 7 or newer,
         * classic pub/sub otherwise. Credentials and TLS of the first URI apply to every node.
         *
         * @param seedUris one or more nodes of a Redis Cluster ({@code redis://} or
         *     {@code rediss://}, with {@code user:password@} for an ACL user); not null
         * @return this builder
         */
        public Builder clusterAddresses(String... seedUris) {
            this.clusterAddresses = List.of(Objects.requireNonNull(seedUris, "seedUris"));
            return this;
        }

        /**
         * @param masterUris at least three independent masters (no replication between them); not null
         * @return this builder
         */
        public Builder redLockAddresses(String... masterUris) {
            this.redLockAddresses = List.of(Objects.requireNonNull(masterUris, "masterUris"));
            return this;
        }

        /**
         * @param lease the lease of locks taken without one, renewed every {@code lease / 3}; positive
         * @return this builder
         */
        public Builder watchdogTimeout(Duration lease) {
            this.watchdogTimeout = Objects.requireNonNull(lease, "watchdogTimeout");
            return this;
        }

        /**
         * @param timeout how long a queued fair-lock waiter may go without retrying before it is
         *     evicted, so that a dead process cannot block the queue; positive
         * @return this builder
         */
        public Builder fairLockWaitTimeout(Duration timeout) {
            this.fairLockWaitTimeout = Objects.requireNonNull(timeout, "fairLockWaitTimeout");
            return this;
        }

        /**
         * @param timeout the bound on one Redis round trip; positive
         * @return this builder
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Objects.requireNonNull(timeout, "commandTimeout");
            return this;
        }

        /**
         * @param timeout how long one RedLock acquire waits for any single master; positive and
         *     shorter than the command timeout (default 100 ms)
         * @return this builder
         */
        public Builder redLockAttemptTimeout(Duration timeout) {
            this.redLockAttemptTimeout = Objects.requireNonNull(timeout, "redLockAttemptTimeout");
            return this;
        }

        /**
         * Trusts the certificates in a PEM file, typically the certificate authority that signed
         * the servers' certificates, for every {@code rediss://} connection of the client (single
         * server, Sentinel, Cluster and RedLock masters alike). The servers' certificates must
         * also name the host they are reached by. Without this setting the JVM's default trust
         * store decides.
         *
         * @param pemFile a readable file of one or more PEM certificates; not null
         * @return this builder
         */
        public Builder trustedCertificates(Path pemFile) {
            this.trustedCertificates = Objects.requireNonNull(pemFile, "pemFile");
            return this;
        }

        /**
         * @return the validated configuration
         * @throws IllegalArgumentException if no address is set, both a single address and a
         *     cluster are set, a URI is malformed, fewer than three RedLock masters or one twice are
         *     given, a duration is zero, negative or inconsistent with another, or the trusted
         *     certificates file is not a readable file
         */
        public LockConfig build() {
            requireArgument(address != null || !clusterAddresses.isEmpty() || !redLockAddresses.isEmpty(),
                    "no Redis configured: set address, clusterAddresses or redLockAddresses");
            requireArgument(address == null || clusterAddresses.isEmpty(),
                    "address and clusterAddresses are exclusive: got %s and %s", address, clusterAddresses);
            requireArgument(redLockAddresses.isEmpty() || redLockAddresses.size() >= MIN_RED_LOCK_MASTERS,
                    "redLockAddresses needs at least %s independent masters, got %s",
                    MIN_RED_LOCK_MASTERS, redLockAddresses.size());
            // The same master twice would count its vote twice.
            redLockAddresses.stream().filter(uri -> redLockAddresses.indexOf(uri) != redLockAddresses.lastIndexOf(uri))
                    .findFirst().ifPresent(uri -> requireArgument(false, "redLockAddresses must be independent masters, got %s twice", redact(uri)));
            if (address != null) {
                requireUri("address", address);
            }
            clusterAddresses.forEach(uri -> requireUri("clusterAddresses", uri));
            redLockAddresses.forEach(uri -> requireUri("redLockAddresses", uri));
            requirePositive("watchdogTimeout", watchdogTimeout);
            requirePositive("fairLockWaitTimeout", fairLockWaitTimeout);
            requirePositive("commandTimeout", commandTimeout);
            requirePositive("redLockAttemptTimeout", redLockAttemptTimeout);
            // A renewal sent at lease/3 must land before the lease runs out even when it takes
            // the whole command timeout.
            requireArgument(commandTimeout.multipliedBy(2).compareTo(watchdogTimeout) < 0,
                    "commandTimeout (%s) must be shorter than half the watchdogTimeout (%s)",
                    commandTimeout, watchdogTimeout);
            requireArgument(redLockAttemptTimeout.compareTo(commandTimeout) <= 0,
                    "redLockAttemptTimeout (%s) must not exceed commandTimeout (%s)",
                    redLockAttemptTimeout, commandTimeout);
            requireArgument(trustedCertificates == null
                            || (Files.isRegularFile(trustedCertificates) && Files.isReadable(trustedCertificates)),
                    "trustedCertificates is not a readable file: %s", trustedCertificates);
            return new LockConfig(this);
        }

        private static void requireUri(String setting, String uri) {
            try {
                RedisURI.create(uri);
            } catch (RuntimeException e) {
                // Not chained: the parser's message repeats the URI, password included.
                throw new IllegalArgumentException(setting + " is not a Redis URI: " + redact(uri)
                        + " (" + e.getClass().getSimpleName() + ")");
            }
        }

        private static void requirePositive(String setting, Duration value) {
            requireArgument(!value.isNegative() && !value.isZero(), "%s must be positive: %s", setting, value);
        }

        private static void requireArgument(boolean condition, String template, Object... args) {
            if (!condition) {
                throw new IllegalArgumentException(String.format(template, args));
            }
        }
    }
}
