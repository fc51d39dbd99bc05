package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * What the {@code rediss://} connections of a {@link LockClient} trust, and the client's own
 * certificate: a PEM file of trusted certificates ({@link LockConfig.Builder#trustedCertificates}),
 * or managers made elsewhere ({@link LockConfig.Builder#tlsManagers}), or neither, in which case
 * the JVM's default trust store decides. They apply to every connection of the client (single
 * server, Sentinel, Cluster and RedLock masters alike), and the servers' certificates must also
 * name the host they are reached by. Immutable and thread-safe.
 */
public final class TlsOptions {

    private static final TlsOptions JVM_DEFAULT = new TlsOptions(Optional.empty(), Optional.empty());

    private final Optional<Path> trustedCertificates;
    private final Optional<Managers> managers;

    private TlsOptions(Optional<Path> trustedCertificates, Optional<Managers> managers) {
        this.trustedCertificates = trustedCertificates;
        this.managers = managers;
    }

    /**
     * @param trustedCertificates the PEM file set, or null
     * @param managers the managers set, or null
     * @return the options, checked
     * @throws IllegalArgumentException if the file is not a readable file, or both are set
     */
    static TlsOptions of(@Nullable Path trustedCertificates, @Nullable Managers managers) {
        requireArgument(trustedCertificates == null
                        || (Files.isRegularFile(trustedCertificates) && Files.isReadable(trustedCertificates)),
                "trustedCertificates is not a readable file: %s", trustedCertificates);
        requireArgument(trustedCertificates == null || managers == null,
                "trustedCertificates and tlsManagers are both set: set one");
        return trustedCertificates == null && managers == null ? JVM_DEFAULT
                : new TlsOptions(Optional.ofNullable(trustedCertificates), Optional.ofNullable(managers));
    }

    /** {@return the PEM file of the certificates that {@code rediss://} connections trust, if one was given} */
    public Optional<Path> trustedCertificates() {
        return trustedCertificates;
    }

    /** {@return the trust and key material set with {@link LockConfig.Builder#tlsManagers}, if any} */
    public Optional<Managers> managers() {
        return managers;
    }

    @Override
    public String toString() {
        return trustedCertificates.map(Path::toString).orElse(managers.isPresent() ? "given managers" : "JVM default");
    }

    /**
     * TLS material from elsewhere (a Spring Boot SSL bundle, say), for every {@code rediss://}
     * connection of the client.
     *
     * @param trust decides which servers are trusted; not null
     * @param keys the client's own certificate, for servers that ask for one; null for none
     */
    public record Managers(TrustManagerFactory trust, KeyManagerFactory keys) {

        /**
         * Checks the trust material is set.
         *
         * @param trust decides which servers are trusted; not null
         * @param keys the client's own certificate, or null
         */
        public Managers {
            Objects.requireNonNull(trust, "trust");
        }
    }
}
