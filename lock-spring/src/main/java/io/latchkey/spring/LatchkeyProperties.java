package io.latchkey.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.jspecify.annotations.Nullable;

/**
 * The {@code latchkey.*} properties of the auto-configured {@link io.latchkey.LockClient}. Set
 * one of {@code address}, {@code cluster.nodes}, {@code sentinel.*} (and, for RedLock,
 * {@code redlock.addresses}); with none of them the client uses Spring Data Redis's
 * {@code spring.data.redis.*}. Durations left unset take {@link io.latchkey.LockConfig}'s
 * defaults. Not thread-safe: Spring binds it once.
 */
@ConfigurationProperties("latchkey")
public class LatchkeyProperties {

    /** One Redis server: redis://host:port, rediss:// for TLS, redis://user:password@host:port. */
    private @Nullable String address;
    /** The lease of locks taken without one, renewed every third of it while held (default 30s). */
    private @Nullable Duration watchdogTimeout;
    /** The bound on one Redis round trip (default 3s, or a quarter of the watchdog timeout). */
    private @Nullable Duration commandTimeout;
    /** How long a queued fair-lock waiter may go without retrying before it is evicted (default: the watchdog timeout). */
    private @Nullable Duration fairLockWaitTimeout;
    /** The bound on one RedLock master's answer to an acquire, under its old name: use latchkey.redlock.attempt-timeout. */
    private @Nullable Duration redLockAttemptTimeout;
    /**
     * The start of every key and channel derived from a lock name (queues, channels, fencing
     * counters): give each application that shares a Redis its own, and its ACL user the patterns
     * ~prefix:* &prefix:* (see the README's Minimal ACL).
     */
    private String keyPrefix = "latchkey";
    private final Cluster cluster = new Cluster();
    private final Sentinel sentinel = new Sentinel();
    private final Redlock redlock = new Redlock();
    @NestedConfigurationProperty
    private final MetricsProperties metrics = new MetricsProperties();
    @NestedConfigurationProperty
    private final ObservationsProperties observations = new ObservationsProperties();
    @NestedConfigurationProperty
    private final LocalHandOffProperties localHandOff = new LocalHandOffProperties();
    private final Startup startup = new Startup();
    private final Ssl ssl = new Ssl();
    @NestedConfigurationProperty
    private final EndpointProperties endpoint = new EndpointProperties();

    /** Properties with nothing set, for Spring to bind. */
    public LatchkeyProperties() {
    }

    /** {@return the single server's URI, or null} */
    public @Nullable String getAddress() {
        return address;
    }

    /**
     * Sets the single server's URI.
     *
     * @param address the single server's URI
     */
    public void setAddress(@Nullable String address) {
        this.address = address;
    }

    /** {@return the watchdog lease, or null for the default} */
    public @Nullable Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    /**
     * Sets the watchdog lease.
     *
     * @param watchdogTimeout the watchdog lease
     */
    public void setWatchdogTimeout(@Nullable Duration watchdogTimeout) {
        this.watchdogTimeout = watchdogTimeout;
    }

    /** {@return the command timeout, or null for the default} */
    public @Nullable Duration getCommandTimeout() {
        return commandTimeout;
    }

    /**
     * Sets the command timeout.
     *
     * @param commandTimeout the command timeout
     */
    public void setCommandTimeout(@Nullable Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    /** {@return the fair lock wait timeout, or null for the default} */
    public @Nullable Duration getFairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    /**
     * Sets the fair lock wait timeout.
     *
     * @param fairLockWaitTimeout the fair lock wait timeout
     */
    public void setFairLockWaitTimeout(@Nullable Duration fairLockWaitTimeout) {
        this.fairLockWaitTimeout = fairLockWaitTimeout;
    }

    /**
     * {@return the RedLock attempt timeout under its old name, or null}
     *
     * @deprecated the name broke the scheme that keeps every RedLock setting under
     *     {@code latchkey.redlock.*}: use {@link Redlock#getAttemptTimeout()}; the old name still
     *     binds (both may be set only to the same value)
     */
    @Deprecated
    @DeprecatedConfigurationProperty(replacement = "latchkey.redlock.attempt-timeout",
            reason = "every RedLock setting is under latchkey.redlock")
    public @Nullable Duration getRedLockAttemptTimeout() {
        return redLockAttemptTimeout;
    }

    /**
     * Sets the RedLock attempt timeout under its old name.
     *
     * @param redLockAttemptTimeout the RedLock attempt timeout
     * @deprecated use {@link Redlock#setAttemptTimeout(Duration)}
     */
    @Deprecated
    public void setRedLockAttemptTimeout(@Nullable Duration redLockAttemptTimeout) {
        this.redLockAttemptTimeout = redLockAttemptTimeout;
    }

    /** {@return the key prefix} */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /**
     * Sets the key prefix.
     *
     * @param keyPrefix the key prefix; {@link io.latchkey.LockConfig.Builder#keyPrefix(String)} validates it
     */
    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /** {@return the Redis Cluster settings} */
    public Cluster getCluster() {
        return cluster;
    }

    /** {@return the Sentinel settings} */
    public Sentinel getSentinel() {
        return sentinel;
    }

    /** {@return the RedLock settings} */
    public Redlock getRedlock() {
        return redlock;
    }

    /** {@return the metrics settings} */
    public MetricsProperties getMetrics() {
        return metrics;
    }

    /** {@return the observation settings} */
    public ObservationsProperties getObservations() {
        return observations;
    }

    /** {@return the local hand-off settings} */
    public LocalHandOffProperties getLocalHandOff() {
        return localHandOff;
    }

    /** {@return the start-up settings} */
    public Startup getStartup() {
        return startup;
    }

    /** {@return the Actuator endpoint's settings} */
    public EndpointProperties getEndpoint() {
        return endpoint;
    }

    /** {@code latchkey.cluster.*}. */
    public static class Cluster {

        /** Nothing set, for Spring to bind. */
        public Cluster() {
        }
        /** Seed nodes of a Redis Cluster, as redis:// URIs or host:port. */
        private List<String> nodes = new ArrayList<>();

        /** {@return the seed nodes} */
        public List<String> getNodes() {
            return nodes;
        }

        /**
         * Sets the seed nodes.
         *
         * @param nodes the seed nodes
         */
        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }
    }

    /** {@code latchkey.sentinel.*}. */
    public static class Sentinel {

        /** Nothing set, for Spring to bind. */
        public Sentinel() {
        }
        /** The name of the master the Sentinels watch. */
        private @Nullable String master;
        /** The Sentinels, as host:port. */
        private List<String> nodes = new ArrayList<>();
        /** The data nodes' password, if any. */
        private @Nullable String password;

        /** {@return the master's name, or null} */
        public @Nullable String getMaster() {
            return master;
        }

        /**
         * Sets the master's name.
         *
         * @param master the master's name
         */
        public void setMaster(@Nullable String master) {
            this.master = master;
        }

        /** {@return the Sentinels} */
        public List<String> getNodes() {
            return nodes;
        }

        /**
         * Sets the Sentinels.
         *
         * @param nodes the Sentinels
         */
        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        /** {@return the password, or null} */
        public @Nullable String getPassword() {
            return password;
        }

        /**
         * Sets the password.
         *
         * @param password the password
         */
        public void setPassword(@Nullable String password) {
            this.password = password;
        }
    }

    /** {@code latchkey.redlock.*}. */
    public static class Redlock {

        /** Nothing set, for Spring to bind. */
        public Redlock() {
        }
        /** At least three independent masters for @Locked(kind = RED) and getRedLock, as redis:// URIs. */
        private List<String> addresses = new ArrayList<>();
        /** The bound on one master's answer to an acquire (default 100ms, or the command timeout if shorter). */
        private @Nullable Duration attemptTimeout;

        /** {@return the masters} */
        public List<String> getAddresses() {
            return addresses;
        }

        /**
         * Sets the masters.
         *
         * @param addresses the masters
         */
        public void setAddresses(List<String> addresses) {
            this.addresses = addresses;
        }

        /** {@return the bound on one master's answer to an acquire, or null for the default} */
        public @Nullable Duration getAttemptTimeout() {
            return attemptTimeout;
        }

        /**
         * Sets the bound on one master's answer to an acquire.
         *
         * @param attemptTimeout the bound on one master's answer to an acquire
         */
        public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
            this.attemptTimeout = attemptTimeout;
        }
    }

    /**
     * {@code latchkey.startup.*}: what the application's start needs of Redis. By default it needs
     * Redis reachable, so that a wrong address or a Redis that is down shows in the deployment
     * rather than at the first lock call.
     */
    public static class Startup {

        /** Nothing set, for Spring to bind. */
        public Startup() {
        }
        /**
         * Whether the application fails to start while Redis cannot be reached. If false, it starts, the
         * health contributor reports DOWN, lock calls fail with LockConnectionException, and the client
         * connects once Redis can be reached (trying every second). A Redis that refuses the client fails
         * the start either way.
         */
        private boolean failIfUnreachable = true;

        /** {@return whether the start fails while Redis cannot be reached} */
        public boolean isFailIfUnreachable() {
            return failIfUnreachable;
        }

        /**
         * Sets whether the start fails while Redis cannot be reached.
         *
         * @param failIfUnreachable whether the start fails while Redis cannot be reached
         */
        public void setFailIfUnreachable(boolean failIfUnreachable) {
            this.failIfUnreachable = failIfUnreachable;
        }
    }

    /** {@return {@code latchkey.ssl.*}: TLS trust for the addresses under {@code latchkey.*}} */
    public Ssl getSsl() {
        return ssl;
    }

    /**
     * {@code latchkey.ssl.*}: what {@code rediss://} addresses under {@code latchkey.*} trust,
     * instead of the JVM's default trust store. (From {@code spring.data.redis.*}, its own
     * {@code ssl.bundle} applies.)
     */
    public static class Ssl {

        /** Nothing set, for Spring to bind. */
        public Ssl() {
        }
        /** The name of a Spring Boot SSL bundle (spring.ssl.bundle.*) whose trust and key material the client uses. */
        private @Nullable String bundle;
        /** A PEM file of the certificates to trust, typically the CA that signed the servers' certificates. */
        private @Nullable String trustedCertificates;

        /** {@return the SSL bundle's name, or null} */
        public @Nullable String getBundle() {
            return bundle;
        }

        /**
         * Sets the SSL bundle whose material the client uses.
         *
         * @param bundle its name under spring.ssl.bundle
         */
        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }

        /** {@return the PEM file of trusted certificates, or null} */
        public @Nullable String getTrustedCertificates() {
            return trustedCertificates;
        }

        /**
         * Sets the PEM file of trusted certificates.
         *
         * @param trustedCertificates a readable PEM file
         */
        public void setTrustedCertificates(@Nullable String trustedCertificates) {
            this.trustedCertificates = trustedCertificates;
        }
    }
}
