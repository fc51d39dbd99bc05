package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import io.latchkey.internal.lock.LockKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Immutable configuration of a {@link LockClient}: where Redis is and how long things may take.
 *
 * <p>Build one with {@link #builder()}; {@link Builder#build()} rejects nonsense with an
 * {@link IllegalArgumentException} that names the setting and the value. A duration left unset
 * takes a default that fits the ones that were set (a short watchdog timeout brings a short
 * command timeout with it, for instance), so only settings chosen together can contradict each
 * other. The options of one concern come as one value, each with its own checks, as Lettuce's
 * {@code ClientOptions} holds its {@code TimeoutOptions}: {@link #timeouts()}, {@link #tls()},
 * {@link #replicaAcknowledgement()}, {@link #localHandOff()}. Thread-safe.
 */
public final class LockConfig {

    private final RedisAddresses redis;
    private final LockTimeouts timeouts;
    private final TlsOptions tls;
    private final LockEventListener eventListener;
    private final Optional<ReplicaAcknowledgement> replicaAcknowledgement;
    private final Optional<LocalHandOff> localHandOff;
    private final String keyPrefix;

    private LockConfig(Builder builder, RedisAddresses redis, LockTimeouts timeouts, TlsOptions tls) {
        this.redis = redis;
        this.timeouts = timeouts;
        this.tls = tls;
        this.eventListener = builder.eventListener;
        this.replicaAcknowledgement = Optional.ofNullable(builder.replicaAcknowledgement);
        this.localHandOff = Optional.ofNullable(builder.localHandOff);
        this.keyPrefix = builder.keyPrefix;
    }

    /**
     * {@return a builder with the defaults: 30 s watchdog lease, 3 s command timeout, 100 ms
     * RedLock attempt timeout, a fair wait timeout equal to the watchdog lease, each adapted to
     * the settings made (see {@link Builder#build()}), local hand-off on with
     * {@link LocalHandOff#DEFAULT}, and the key prefix {@code latchkey}}
     */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return where Redis is: one server, Sentinel group or Cluster, and the RedLock masters} */
    public RedisAddresses redis() {
        return redis;
    }

    /** {@return the single-server or Sentinel URI, if one was given: {@link RedisAddresses#address()}} */
    public Optional<String> address() {
        return redis.address();
    }

    /** {@return the Redis Cluster seed URIs, if any: {@link RedisAddresses#cluster()}} */
    public List<String> clusterAddresses() {
        return redis.cluster();
    }

    /** {@return the RedLock masters, if any: {@link RedisAddresses#redLock()}} */
    public List<String> redLockAddresses() {
        return redis.redLock();
    }

    /** {@return the four durations, those set and those chosen to fit them} */
    public LockTimeouts timeouts() {
        return timeouts;
    }

    /** {@return the watchdog lease: {@link LockTimeouts#watchdog()}} */
    public Duration watchdogTimeout() {
        return timeouts.watchdog();
    }

    /** {@return how long a fair-lock waiter keeps its place: {@link LockTimeouts#fairLockWait()}} */
    public Duration fairLockWaitTimeout() {
        return timeouts.fairLockWait();
    }

    /** {@return the bound on one Redis round trip: {@link LockTimeouts#command()}} */
    public Duration commandTimeout() {
        return timeouts.command();
    }

    /** {@return the bound on one RedLock master's answer: {@link LockTimeouts#redLockAttempt()}} */
    public Duration redLockAttemptTimeout() {
        return timeouts.redLockAttempt();
    }

    /** {@return what {@code rediss://} connections trust, and the client's own certificate} */
    public TlsOptions tls() {
        return tls;
    }

    /**
     * {@return the listener told of the client's lock events; {@link LockEventListener#NONE}
     * unless one was set}
     */
    public LockEventListener eventListener() {
        return eventListener;
    }

    /** {@return the replica acknowledgement of acquisitions; empty (the default) where they do not wait for replicas} */
    public Optional<ReplicaAcknowledgement> replicaAcknowledgement() {
        return replicaAcknowledgement;
    }

    /** {@return the bounds of the plain lock's local hand-off if it is on (the default); empty when off} */
    public Optional<LocalHandOff> localHandOff() {
        return localHandOff;
    }

    /** {@return the start of every key and channel derived from a lock name (see {@link Builder#keyPrefix})} */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** {@return where Redis is, without credentials, for logs and health details: {@link RedisAddresses#target()}} */
    public String redisTarget() {
        return redis.target();
    }

    @Override
    public String toString() {
        return "LockConfig{" + redis + ", " + timeouts + ", trustedCertificates=" + tls
                + ", replicaAcknowledgement=" + replicaAcknowledgement.map(ReplicaAcknowledgement::toString).orElse("none")
                + ", localHandOff=" + localHandOff.map(LocalHandOff::toString).orElse("off")
                + ", keyPrefix=" + keyPrefix + '}';
    }

    /** What an acquisition does when fewer replicas than asked acknowledged it in time. */
    public enum ReplicaShortfall {
        /**
         * The acquisition fails with a {@link LockException} that names the replicas asked for and
         * those that acknowledged, and the hold it was granted is released: the caller never holds
         * a lock that a failover could take away unnoticed.
         */
        FAIL,
        /**
         * The acquisition succeeds and a warning is logged: the lock is held, as it would be
         * without acknowledgement, and a failover before the replicas catch up may lose it.
         */
        WARN
    }

    /** Collects settings; not thread-safe. Every setter rejects null at once. */
    public static final class Builder {

        private @Nullable String address;
        private List<String> clusterAddresses = List.of();
        private List<String> redLockAddresses = List.of();
        /** The durations the caller set; null for those left to {@link #build()} to choose. */
        private @Nullable Duration watchdogTimeout;
        private @Nullable Duration fairLockWaitTimeout;
        private @Nullable Duration commandTimeout;
        private @Nullable Duration redLockAttemptTimeout;
        private @Nullable Path trustedCertificates;
        private TlsOptions.@Nullable Managers tlsManagers;
        private LockEventListener eventListener = LockEventListener.NONE;
        private @Nullable ReplicaAcknowledgement replicaAcknowledgement;
        /** Null when off. */
        private @Nullable LocalHandOff localHandOff = LocalHandOff.DEFAULT;
        private String keyPrefix = LockKeys.DEFAULT_PREFIX;

        private Builder() {
        }

        /**
         * Points the client at one Redis server or a Sentinel group.
         *
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
         * Points the client at a Redis Cluster (see {@link RedisAddresses} for how locks live on it).
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
         * Sets the independent masters of {@link LockClient#getRedLock(String)}.
         *
         * @param masterUris at least three independent masters (no replication between them); not null
         * @return this builder
         */
        public Builder redLockAddresses(String... masterUris) {
            this.redLockAddresses = List.of(Objects.requireNonNull(masterUris, "masterUris"));
            return this;
        }

        /**
         * Sets the watchdog lease: the lease of locks taken without one, renewed every third of it
         * while they are held. Default 30 s, or four command timeouts if that is longer.
         *
         * @param lease positive and longer than twice the command timeout
         * @return this builder
         */
        public Builder watchdogTimeout(Duration lease) {
            this.watchdogTimeout = Objects.requireNonNull(lease, "watchdogTimeout");
            return this;
        }

        /**
         * Sets how long a queued fair-lock waiter may go without retrying before it is evicted, so
         * that a dead process cannot block the queue. Default: the watchdog timeout (see
         * {@link LockTimeouts#fairLockWait()}).
         *
         * @param timeout positive
         * @return this builder
         */
        public Builder fairLockWaitTimeout(Duration timeout) {
            this.fairLockWaitTimeout = Objects.requireNonNull(timeout, "fairLockWaitTimeout");
            return this;
        }

        /**
         * Sets the bound on every round trip to Redis. Default 3 s, or a quarter of the watchdog
         * timeout if that is shorter (but never below a RedLock attempt timeout that was set).
         *
         * @param timeout positive, shorter than half the watchdog timeout, and not shorter than
         *     the RedLock attempt timeout
         * @return this builder
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Objects.requireNonNull(timeout, "commandTimeout");
            return this;
        }

        /**
         * Sets how long one RedLock acquire waits for any single master. Default 100 ms, or the
         * command timeout if that is shorter.
         *
         * @param timeout positive and not longer than the command timeout
         * @return this builder
         */
        public Builder redLockAttemptTimeout(Duration timeout) {
            this.redLockAttemptTimeout = Objects.requireNonNull(timeout, "redLockAttemptTimeout");
            return this;
        }

        /**
         * Trusts the certificates in a PEM file, typically the certificate authority that signed
         * the servers' certificates, for every {@code rediss://} connection (see {@link TlsOptions}).
         *
         * @param pemFile a readable file of one or more PEM certificates; not null
         * @return this builder
         */
        public Builder trustedCertificates(Path pemFile) {
            this.trustedCertificates = Objects.requireNonNull(pemFile, "pemFile");
            return this;
        }

        /**
         * Uses TLS material made elsewhere, such as a Spring Boot SSL bundle's managers, for every
         * {@code rediss://} connection, instead of {@link #trustedCertificates} (setting both is an
         * error; see {@link TlsOptions}).
         *
         * @param trust decides which servers are trusted; not null
         * @param keys the client's own certificate and key, for servers that ask for one (mutual
         *     TLS); null for none
         * @return this builder
         */
        public Builder tlsManagers(TrustManagerFactory trust, KeyManagerFactory keys) {
            this.tlsManagers = new TlsOptions.Managers(trust, keys);
            return this;
        }

        /**
         * Sets the listener told of every acquisition, release, renewal, lost lease and local
         * hand-off of the client's locks, on Latchkey's threads (see {@link LockEventListener}
         * for what it must and must not do). To tell several listeners, pass one that tells each.
         *
         * @param listener the listener; not null ({@link LockEventListener#NONE}, the default,
         *     for none)
         * @return this builder
         */
        public Builder eventListener(LockEventListener listener) {
            this.eventListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Makes every acquisition of a plain or fair lock wait for replicas to acknowledge it with
         * {@code WAIT} (see {@link ReplicaAcknowledgement} for what it costs and what it does not
         * cover). Off by default.
         *
         * @param replicas how many replicas must acknowledge each acquisition; at least 1
         * @param timeout how long an acquisition waits for them; at least a millisecond and
         *     shorter than the command timeout (a few tens of milliseconds is typical: replicas on
         *     a healthy link acknowledge within a round trip)
         * @param onShortfall what happens when fewer acknowledge in time: {@link ReplicaShortfall#FAIL}
         *     fails the acquisition with a {@link LockException} and releases the hold,
         *     {@link ReplicaShortfall#WARN} keeps it and logs a warning; not null
         * @return this builder
         * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} below
         *     a millisecond
         * @throws NullPointerException if {@code timeout} or {@code onShortfall} is null
         */
        public Builder replicaAcknowledgement(int replicas, Duration timeout, ReplicaShortfall onShortfall) {
            this.replicaAcknowledgement = new ReplicaAcknowledgement(replicas, timeout, onShortfall);
            return this;
        }

        /**
         * Sets the plain lock's local hand-off to the default bounds ({@link LocalHandOff#DEFAULT}),
         * which a builder starts with: this undoes an earlier {@link #noLocalHandOff()} or
         * {@link #localHandOff(int, Duration)}.
         *
         * @return this builder
         */
        public Builder localHandOff() {
            this.localHandOff = LocalHandOff.DEFAULT;
            return this;
        }

        /**
         * Sets the bounds of the plain lock's local hand-off (see {@link LocalHandOff}), and turns
         * it on again after {@link #noLocalHandOff()}. Default: {@link LocalHandOff#DEFAULT}.
         *
         * @param maxHandOffs the most local hand-offs per Redis hold; 1 to 1,000,000
         * @param maxTime the longest time one Redis hold is passed on locally; positive
         * @return this builder
         * @throws IllegalArgumentException if a bound is out of range
         * @throws NullPointerException if {@code maxTime} is null
         */
        public Builder localHandOff(int maxHandOffs, Duration maxTime) {
            this.localHandOff = new LocalHandOff(maxHandOffs, maxTime);
            return this;
        }

        /**
         * Turns the plain lock's local hand-off off (it is on by default): every hold of a plain
         * lock goes through Redis. Give every client of a lock the same setting (see
         * {@link LocalHandOff}).
         *
         * @return this builder
         */
        public Builder noLocalHandOff() {
            this.localHandOff = null;
            return this;
        }

        /**
         * Sets the start of every key and channel the client derives from a lock name (default
         * {@code latchkey}): with {@code keyPrefix("billing")} a lock {@code N} keeps its hash at
         * {@code N} and derives {@code billing:{N}:channel}, {@code billing:fence:{S}} and the
         * like. Applications that share a Redis each take their own prefix, so that each one's
         * ACL user can be confined to {@code ~billing:* &billing:*} plus its lock names, and no
         * application can reset another's fencing counters or wake its waiters. Every client of
         * one lock must use the same prefix, or they do not wake each other and draw tokens from
         * different counters (they still exclude each other: the hash is the name).
         *
         * @param prefix not empty, at most 64 characters, without braces (they would change the
         *     Cluster hash tag of every derived key), whitespace, control characters or the glob
         *     characters {@code * ? [ ] \} (the ACL patterns would read them as wildcards), and
         *     not ending with ':' (the library adds it); not null. Lock names starting with
         *     {@code prefix + ":"} are refused, as are those starting with {@code latchkey:}.
         * @return this builder
         * @throws IllegalArgumentException if the prefix breaks one of these rules
         * @throws NullPointerException if it is null
         */
        public Builder keyPrefix(String prefix) {
            this.keyPrefix = KeyPrefixRules.requireValid(prefix);
            return this;
        }

        /**
         * Validates the settings and fills in the durations left unset, each so that it fits the
         * ones that were set (see {@link LockTimeouts}): so a contradiction needs two settings that
         * were both made, and its message names both.
         *
         * @return the validated configuration
         * @throws IllegalArgumentException if no address is set, both a single address and a
         *     cluster are set, a URI is malformed, fewer than three RedLock masters or one twice are
         *     given, a duration is zero, negative or contradicts another that was set, or the
         *     trusted certificates file is not a readable file, or the replica acknowledgement
         *     timeout is not shorter than the command timeout; the message never shows a password
         */
        public LockConfig build() {
            RedisAddresses redis = RedisAddresses.of(address, clusterAddresses, redLockAddresses);
            LockTimeouts timeouts = LockTimeouts.fit(watchdogTimeout, fairLockWaitTimeout, commandTimeout,
                    redLockAttemptTimeout);
            Duration command = timeouts.command();
            TlsOptions tls = TlsOptions.of(trustedCertificates, tlsManagers);
            // WAIT's answer must come back within the command timeout that bounds its round trip.
            requireArgument(replicaAcknowledgement == null || replicaAcknowledgement.timeout().compareTo(command) < 0,
                    "replicaAcknowledgement timeout (%s) must be shorter than the commandTimeout (%s)",
                    replicaAcknowledgement == null ? null : replicaAcknowledgement.timeout(), command);
            return new LockConfig(this, redis, timeouts, tls);
        }
    }
}
