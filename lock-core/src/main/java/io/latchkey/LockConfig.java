package io.latchkey;

import io.latchkey.internal.lock.LockKeys;
import io.latchkey.internal.redis.Redaction;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable configuration of a {@link LockClient}: where Redis is and how long things may take.
 *
 * <p>Build one with {@link #builder()}; {@link Builder#build()} rejects nonsense with an
 * {@link IllegalArgumentException} that names the setting and the value. A duration left unset
 * takes a default that fits the ones that were set (a short watchdog timeout brings a short
 * command timeout with it, for instance), so only settings chosen together can contradict each
 * other. Thread-safe.
 */
public final class LockConfig {

    private final Optional<String> address;
    private final List<String> clusterAddresses;
    private final List<String> redLockAddresses;
    private final FittingTimeouts timeouts;
    private final Optional<Path> trustedCertificates;
    private final Optional<TlsManagers> tlsManagers;
    private final LockEventListener eventListener;
    private final Optional<ReplicaAcknowledgement> replicaAcknowledgement;
    private final Optional<LocalHandOff> localHandOff;
    private final String keyPrefix;

    private LockConfig(Builder builder, FittingTimeouts timeouts) {
        this.address = Optional.ofNullable(builder.address);
        this.clusterAddresses = builder.clusterAddresses;
        this.redLockAddresses = builder.redLockAddresses;
        this.timeouts = timeouts;
        this.trustedCertificates = Optional.ofNullable(builder.trustedCertificates);
        this.tlsManagers = Optional.ofNullable(builder.tlsManagers);
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

    /** {@return the single-server or Sentinel URI, if one was given} */
    public Optional<String> address() {
        return address;
    }

    /** {@return the Redis Cluster seed URIs; empty unless a cluster was configured} */
    public List<String> clusterAddresses() {
        return clusterAddresses;
    }

    /** {@return the independent masters used by {@link LockClient#getRedLock(String)}; may be empty} */
    public List<String> redLockAddresses() {
        return redLockAddresses;
    }

    /** {@return the lease of locks taken without one; renewed every third of it while held} */
    public Duration watchdogTimeout() {
        return timeouts.watchdog();
    }

    /**
     * {@return how long a fair-lock waiter may go without retrying before it is evicted from the
     * queue; unless set, the watchdog timeout}
     */
    public Duration fairLockWaitTimeout() {
        return timeouts.fairLockWait();
    }

    /** {@return the bound on one Redis round trip} */
    public Duration commandTimeout() {
        return timeouts.command();
    }

    /** {@return the bound on one RedLock master's answer to an acquire, far below any lease} */
    public Duration redLockAttemptTimeout() {
        return timeouts.redLockAttempt();
    }

    /**
     * {@return the PEM file of the certificates that {@code rediss://} connections trust, if one
     * was given}; without it the JVM's default trust store decides.
     */
    public Optional<Path> trustedCertificates() {
        return trustedCertificates;
    }

    /** {@return the TLS trust and key material set with {@link Builder#tlsManagers}, if any} */
    public Optional<TlsManagers> tlsManagers() {
        return tlsManagers;
    }

    /**
     * TLS material from elsewhere (a Spring Boot SSL bundle, say), for every {@code rediss://}
     * connection of the client.
     *
     * @param trust decides which servers are trusted; not null
     * @param keys the client's own certificate, for servers that ask for one; null for none
     */
    public record TlsManagers(TrustManagerFactory trust, KeyManagerFactory keys) {

        /**
         * Checks the trust material is set.
         *
         * @param trust decides which servers are trusted; not null
         * @param keys the client's own certificate, or null
         */
        public TlsManagers {
            Objects.requireNonNull(trust, "trust");
        }
    }

    /**
     * {@return the listener told of the client's lock events; {@link LockEventListener#NONE}
     * unless one was set}
     */
    public LockEventListener eventListener() {
        return eventListener;
    }

    /**
     * {@return how many replicas must acknowledge each acquisition, within what time, and what
     * happens when fewer do; empty (the default) where acquisitions do not wait for replicas}
     */
    public Optional<ReplicaAcknowledgement> replicaAcknowledgement() {
        return replicaAcknowledgement;
    }

    /**
     * {@return the bounds of the plain lock's local hand-off, if it is on ({@link LocalHandOff#DEFAULT}
     * unless set otherwise); empty when every hold of a plain lock goes through Redis
     * ({@link Builder#noLocalHandOff()})}
     */
    public Optional<LocalHandOff> localHandOff() {
        return localHandOff;
    }

    /**
     * {@return the start of every key and channel the client derives from a lock name:
     * {@code <prefix>:{N}:channel}, {@code <prefix>:fence:{S}} and so on; {@code latchkey} unless
     * set}. The lock hash itself is the lock's name, whatever the prefix.
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * {@return where the client's Redis is, fit to show in a log line or a health detail: the
     * URI, {@code cluster [URIs]} or {@code redlock [URIs]}, each without its credentials}
     */
    public String redisTarget() {
        if (address.isPresent()) {
            return Redaction.uri(address.get());
        }
        if (!clusterAddresses.isEmpty()) {
            return "cluster " + Redaction.uris(clusterAddresses);
        }
        return "redlock " + Redaction.uris(redLockAddresses);
    }

    @Override
    public String toString() {
        return "LockConfig{address=" + address.map(Redaction::uri).orElse("none")
                + ", clusterAddresses=" + Redaction.uris(clusterAddresses)
                + ", redLockAddresses=" + Redaction.uris(redLockAddresses)
                + ", watchdogTimeout=" + timeouts.watchdog()
                + ", fairLockWaitTimeout=" + timeouts.fairLockWait()
                + ", commandTimeout=" + timeouts.command()
                + ", redLockAttemptTimeout=" + timeouts.redLockAttempt()
                + ", trustedCertificates=" + trustedCertificates.map(Path::toString)
                        .orElse(tlsManagers.isPresent() ? "given managers" : "JVM default")
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

    /**
     * Replica acknowledgement of acquisitions: after the acquire script grants, {@code WAIT}
     * asks the master for {@code replicas} acknowledgements within {@code timeout}. Redis
     * replicates asynchronously, so a hold granted just before the master fails may be missing
     * on the replica promoted in its place; a hold that enough replicas acknowledged is on each
     * of them. (Not a guarantee of durability: a replica that acknowledged may itself be lost,
     * and Sentinel may promote another; see the README.)
     *
     * @param replicas how many replicas must acknowledge; at least 1
     * @param timeout how long to wait for them; at least a millisecond, and shorter than the
     *     command timeout
     * @param onShortfall what happens when fewer acknowledge in time
     */
    public record ReplicaAcknowledgement(int replicas, Duration timeout, ReplicaShortfall onShortfall) {

        /**
         * Validates the setting.
         *
         * @param replicas how many replicas must acknowledge; at least 1
         * @param timeout how long to wait for them; at least a millisecond
         * @param onShortfall what happens when fewer acknowledge in time
         * @throws NullPointerException if {@code timeout} or {@code onShortfall} is null
         * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} below
         *     a millisecond ({@code WAIT} counts whole milliseconds, and 0 would wait for ever)
         */
        public ReplicaAcknowledgement {
            Objects.requireNonNull(timeout, "timeout");
            Objects.requireNonNull(onShortfall, "onShortfall");
            Builder.requireArgument(replicas >= 1, "replicaAcknowledgement replicas must be at least 1: %s", replicas);
            Builder.requireArgument(timeout.compareTo(Duration.ofMillis(1)) >= 0,
                    "replicaAcknowledgement timeout must be at least 1 ms: %s", timeout);
        }
    }

    /**
     * The bounds of the plain lock's local hand-off (lock cohorting): while this client holds a
     * plain lock in Redis, an unlock passes the hold straight to a waiting thread (or async owner)
     * of this client, without a round trip. While a client with local hand-off on waits for the
     * lock too, at most {@code maxHandOffs} times in a row and for at most {@code maxTime} from
     * the Redis acquisition; then the hold is released in Redis and reserved for that client's
     * turn, which it takes with one round trip. The bounds count from the moment Redis has that
     * client's try: the holder reads the lock's waiting mark every {@code maxHandOffs / 2}
     * hand-offs, and hands off no further than {@code maxHandOffs} past its last answer, nor
     * while a read has been unanswered for {@code maxTime}, before it hears again. With nobody
     * else waiting, the hold is passed on as long as this client has waiters (released and taken
     * again in Redis every 1,024 hand-offs or {@code maxHandOffs}, whichever is more, for a fresh
     * block of fencing tokens). Clients
     * with local hand-off off are not seen as waiting: give every client of a lock the same
     * setting. On by default with {@link #DEFAULT}; {@link Builder#noLocalHandOff()} turns it off.
     *
     * @param maxHandOffs the most local hand-offs per Redis hold while another client waits; 1 to
     *     1,000,000
     * @param maxTime the longest time one Redis hold is passed on locally while another client
     *     waits; positive
     */
    public record LocalHandOff(int maxHandOffs, Duration maxTime) {

        /**
         * The bounds a client has unless set otherwise, and those {@link Builder#localHandOff()}
         * sets: 32 hand-offs, 20 ms.
         */
        public static final LocalHandOff DEFAULT = new LocalHandOff(32, Duration.ofMillis(20));

        /**
         * Validates the bounds.
         *
         * @param maxHandOffs the most local hand-offs per Redis hold
         * @param maxTime the longest time one Redis hold is passed on locally
         * @throws IllegalArgumentException if {@code maxHandOffs} is outside 1 to 1,000,000 or
         *     {@code maxTime} is not positive
         * @throws NullPointerException if {@code maxTime} is null
         */
        public LocalHandOff {
            Objects.requireNonNull(maxTime, "maxTime");
            Builder.requireArgument(maxHandOffs >= 1 && maxHandOffs <= 1_000_000,
                    "localHandOff maxHandOffs must be between 1 and 1000000: %s", maxHandOffs);
            Builder.requireArgument(!maxTime.isNegative() && !maxTime.isZero(),
                    "localHandOff maxTime must be positive: %s", maxTime);
        }
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
        private @Nullable TlsManagers tlsManagers;
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
         * Sets the watchdog lease: the lease of locks taken without one, renewed while they are
         * held.
         *
         * @param lease the lease of locks taken without one, renewed every {@code lease / 3};
         *     positive and longer than twice the command timeout. Default 30 s, or four command
         *     timeouts if that is longer.
         * @return this builder
         */
        public Builder watchdogTimeout(Duration lease) {
            this.watchdogTimeout = Objects.requireNonNull(lease, "watchdogTimeout");
            return this;
        }

        /**
         * Sets how long a fair-lock waiter keeps its place in the queue without retrying.
         *
         * @param timeout how long a queued fair-lock waiter may go without retrying before it is
         *     evicted, so that a dead process cannot block the queue; positive. Default: the
         *     watchdog timeout, so a crashed waiter stalls the queue no longer than a crashed
         *     holder does (live waiters retry at least every half of it, so they keep their
         *     place).
         * @return this builder
         */
        public Builder fairLockWaitTimeout(Duration timeout) {
            this.fairLockWaitTimeout = Objects.requireNonNull(timeout, "fairLockWaitTimeout");
            return this;
        }

        /**
         * Sets the bound on every round trip to Redis.
         *
         * @param timeout the bound on one Redis round trip; positive, shorter than half the
         *     watchdog timeout, and not shorter than the RedLock attempt timeout. Default 3 s, or a
         *     quarter of the watchdog timeout if that is shorter (but never below a RedLock
         *     attempt timeout that was set).
         * @return this builder
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Objects.requireNonNull(timeout, "commandTimeout");
            return this;
        }

        /**
         * Sets the bound on each RedLock master's answer to an acquire.
         *
         * @param timeout how long one RedLock acquire waits for any single master; positive and
         *     not longer than the command timeout. Default 100 ms, or the command timeout if that
         *     is shorter.
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
         * Uses TLS material made elsewhere, such as a Spring Boot SSL bundle's managers, for every
         * {@code rediss://} connection of the client, instead of {@link #trustedCertificates}
         * (setting both is an error). The servers' certificates must also name the host they are
         * reached by.
         *
         * @param trust decides which servers are trusted; not null
         * @param keys the client's own certificate and key, for servers that ask for one (mutual
         *     TLS); null for none
         * @return this builder
         */
        public Builder tlsManagers(TrustManagerFactory trust, KeyManagerFactory keys) {
            this.tlsManagers = new TlsManagers(trust, keys);
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
         * Makes every acquisition of a plain or fair lock wait for replicas to acknowledge it
         * ({@code WAIT}, sent on the same connection right behind the acquire script, so that it
         * adds the replicas' acknowledgement time but no round trip). Off by default. Where the
         * server refuses {@code WAIT} (an ACL user without it, a managed service that renames or
         * forbids it), the refusal is logged once at WARN and acquisitions go on without
         * acknowledgement. Where the master has fewer replicas than asked, every acquisition takes
         * the whole timeout and then meets {@code onShortfall}. Renewals do not wait: a renewal
         * only extends a hold that its grant's acknowledgement already put on the replicas, and
         * a renewal lost in a failover costs at most the lease, which the watchdog renews again on
         * the new master. RedLock masters do not wait either: a RedLock survives the loss of a
         * minority of masters by its quorum, not by replication.
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
         * {@link #localHandOff(int, Duration)}. Only plain locks taken with the watchdog lease are
         * passed on locally; fixed leases, fair locks and RedLocks go through Redis as always.
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
         * ones that were set: the command timeout is 3 s or a quarter of the watchdog timeout if
         * that is shorter, and at least a RedLock attempt timeout that was set; the watchdog
         * timeout is 30 s or four command timeouts if that is longer; the RedLock attempt timeout
         * is 100 ms or the command timeout if that is shorter; the fair lock wait timeout is the
         * watchdog timeout. So a contradiction needs two settings that were both made, and its
         * message names both.
         *
         * @return the validated configuration
         * @throws IllegalArgumentException if no address is set, both a single address and a
         *     cluster are set, a URI is malformed, fewer than three RedLock masters or one twice are
         *     given, a duration is zero, negative or contradicts another that was set, or the
         *     trusted certificates file is not a readable file, or the replica acknowledgement
         *     timeout is not shorter than the command timeout; the message never shows a password
         */
        public LockConfig build() {
            RedisAddresses.check(address, clusterAddresses, redLockAddresses);
            FittingTimeouts timeouts = FittingTimeouts.fit(watchdogTimeout, fairLockWaitTimeout, commandTimeout,
                    redLockAttemptTimeout);
            Duration command = timeouts.command();
            requireArgument(trustedCertificates == null
                            || (Files.isRegularFile(trustedCertificates) && Files.isReadable(trustedCertificates)),
                    "trustedCertificates is not a readable file: %s", trustedCertificates);
            requireArgument(trustedCertificates == null || tlsManagers == null,
                    "trustedCertificates and tlsManagers are both set: set one");
            // WAIT's answer must come back within the command timeout that bounds its round trip.
            requireArgument(replicaAcknowledgement == null || replicaAcknowledgement.timeout().compareTo(command) < 0,
                    "replicaAcknowledgement timeout (%s) must be shorter than the commandTimeout (%s)",
                    replicaAcknowledgement == null ? null : replicaAcknowledgement.timeout(), command);
            return new LockConfig(this, timeouts);
        }

        static void requireArgument(boolean condition, String template, @Nullable Object... args) {
            if (!condition) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, template, args));
            }
        }
    }
}
