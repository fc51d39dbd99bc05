package io.latchkey.spring;

import io.latchkey.LocalHandOff;
import io.latchkey.LockConfig;
import io.latchkey.LockEventListener;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import org.jspecify.annotations.Nullable;

/**
 * Builds the {@link LockConfig} of the auto-configured client: from {@code latchkey.*}, or, when
 * that names no Redis, from Spring Data Redis's {@code spring.data.redis.*} (read from the
 * environment, so Spring Data Redis need not be on the class path), or else
 * {@code redis://localhost:6379} as Spring Data Redis would. Stateless.
 */
final class LockConfigFactory {

    private static final String SPRING_DATA_REDIS = "spring.data.redis";

    private LockConfigFactory() {
    }

    /**
     * @param sslBundles Spring Boot's SSL bundles, or null where there are none
     */
    static LockConfig create(LatchkeyProperties properties, Environment environment, LockEventListener listener,
                             @Nullable SslBundles sslBundles) {
        LockConfig.Builder builder = LockConfig.builder().eventListener(listener);
        if (redis(properties, builder)) {
            latchkeySsl(properties, builder, sslBundles);
        } else {
            springDataRedis(Binder.get(environment), builder, sslBundles);
        }
        if (!properties.getRedlock().getAddresses().isEmpty()) {
            builder.redLockAddresses(properties.getRedlock().getAddresses().toArray(String[]::new));
        }
        Optional.ofNullable(properties.getWatchdogTimeout()).ifPresent(builder::watchdogTimeout);
        Optional.ofNullable(properties.getCommandTimeout()).ifPresent(builder::commandTimeout);
        Optional.ofNullable(properties.getFairLockWaitTimeout()).ifPresent(builder::fairLockWaitTimeout);
        Optional.ofNullable(redLockAttemptTimeout(properties)).ifPresent(builder::redLockAttemptTimeout);
        localHandOff(properties.getLocalHandOff(), builder);
        Optional.ofNullable(properties.getKeyPrefix()).ifPresent(builder::keyPrefix);
        return builder.build();
    }

    /**
     * {@return the RedLock attempt timeout under either name, or null} Both names may be set (one
     * in a shared file, say) only to the same value: which one won would otherwise depend on the
     * order in which Spring binds them.
     */
    private static @Nullable Duration redLockAttemptTimeout(LatchkeyProperties properties) {
        Duration current = properties.getRedlock().getAttemptTimeout();
        @SuppressWarnings("deprecation")
        Duration old = properties.getRedLockAttemptTimeout();
        if (current != null && old != null && !current.equals(old)) {
            throw new IllegalArgumentException("latchkey.redlock.attempt-timeout (" + current
                    + ") and its deprecated name latchkey.red-lock-attempt-timeout (" + old + ") disagree: set only the first");
        }
        return current != null ? current : old;
    }

    private static void localHandOff(LocalHandOffProperties handOff, LockConfig.Builder builder) {
        if (!handOff.isEnabled()) {
            builder.noLocalHandOff();
        } else if (handOff.getMaxHandOffs() != null || handOff.getMaxTime() != null) {
            LocalHandOff defaults = LocalHandOff.DEFAULT;
            builder.localHandOff(Optional.ofNullable(handOff.getMaxHandOffs()).orElse(defaults.maxHandOffs()),
                    Optional.ofNullable(handOff.getMaxTime()).orElse(defaults.maxTime()));
        }
    }

    /** {@return true if {@code latchkey.*} names a Redis (RedLock masters alone count)} */
    private static boolean redis(LatchkeyProperties properties, LockConfig.Builder builder) {
        LatchkeyProperties.Sentinel sentinel = properties.getSentinel();
        if (properties.getAddress() != null) {
            builder.address(properties.getAddress());
        } else if (!properties.getCluster().getNodes().isEmpty()) {
            builder.clusterAddresses(uris(properties.getCluster().getNodes(), null, false));
        } else if (sentinel.getMaster() != null) {
            builder.address(sentinelUri(sentinel.getNodes(), sentinel.getMaster(), null, sentinel.getPassword(), false, 0));
        } else {
            return !properties.getRedlock().getAddresses().isEmpty();
        }
        return true;
    }

    /** TLS material from {@code latchkey.ssl.*}, only for addresses that ask for TLS. */
    private static void latchkeySsl(LatchkeyProperties properties, LockConfig.Builder builder, @Nullable SslBundles sslBundles) {
        LatchkeyProperties.Ssl ssl = properties.getSsl();
        if (ssl.getBundle() == null && ssl.getTrustedCertificates() == null) {
            return;
        }
        List<String> plain = new ArrayList<>();
        if (properties.getAddress() != null && !properties.getAddress().startsWith("rediss")) {
            plain.add("latchkey.address");
        }
        if (properties.getCluster().getNodes().stream().anyMatch(uri -> !uri.startsWith("rediss"))) {
            plain.add("latchkey.cluster.nodes");
        }
        if (properties.getRedlock().getAddresses().stream().anyMatch(uri -> !uri.startsWith("rediss"))) {
            plain.add("latchkey.redlock.addresses");
        }
        if (properties.getSentinel().getMaster() != null) {
            plain.add("latchkey.sentinel");
        }
        if (!plain.isEmpty()) {
            // TLS material for connections that would not use it: the user meant TLS, so say so.
            throw new IllegalArgumentException("latchkey.ssl.* is set, but " + String.join(", ", plain)
                    + " do not use TLS: use rediss:// addresses");
        }
        if (ssl.getBundle() != null) {
            tlsFromBundle("latchkey.ssl.bundle", ssl.getBundle(), builder, sslBundles);
        }
        if (ssl.getTrustedCertificates() != null) {
            builder.trustedCertificates(Path.of(ssl.getTrustedCertificates()));
        }
    }

    private static void tlsFromBundle(String property, String name, LockConfig.Builder builder, @Nullable SslBundles sslBundles) {
        if (sslBundles == null) {
            throw new IllegalStateException(property + "=" + name + " names an SSL bundle, but the application has no "
                    + "SslBundles (Spring Boot's SslAutoConfiguration is off)");
        }
        SslBundle bundle = sslBundles.getBundle(name); // NoSuchSslBundleException names it when missing
        builder.tlsManagers(bundle.getManagers().getTrustManagerFactory(), bundle.getManagers().getKeyManagerFactory());
    }

    private static void springDataRedis(Binder binder, LockConfig.Builder builder, @Nullable SslBundles sslBundles) {
        String url = string(binder, "url");
        String username = string(binder, "username");
        String password = string(binder, "password");
        String bundle = string(binder, "ssl.bundle");
        // Boot's rule: naming a bundle turns TLS on unless ssl.enabled says otherwise. Reading only
        // ssl.enabled once sent the password in clear to a server the application meant to reach by TLS.
        boolean ssl = binder.bind(SPRING_DATA_REDIS + ".ssl.enabled", Boolean.class).orElse(bundle != null);
        if (ssl && bundle != null) {
            tlsFromBundle(SPRING_DATA_REDIS + ".ssl.bundle", bundle, builder, sslBundles);
        }
        int database = binder.bind(SPRING_DATA_REDIS + ".database", Integer.class).orElse(0);
        List<String> clusterNodes = list(binder, "cluster.nodes");
        String sentinelMaster = string(binder, "sentinel.master");
        if (sentinelMaster != null) {
            builder.address(sentinelUri(list(binder, "sentinel.nodes"), sentinelMaster, username, password, ssl, database));
        } else if (!clusterNodes.isEmpty()) {
            builder.clusterAddresses(uris(clusterNodes, credentials(username, password), ssl));
        } else if (url != null) {
            // As Boot does: TLS on makes even a redis:// URL use TLS.
            builder.address(ssl && url.startsWith("redis://") ? "rediss://" + url.substring("redis://".length()) : url);
        } else {
            String host = Optional.ofNullable(string(binder, "host")).orElse("localhost");
            int port = binder.bind(SPRING_DATA_REDIS + ".port", Integer.class).orElse(6379);
            builder.address((ssl ? "rediss://" : "redis://") + credentials(username, password) + host + ':' + port
                    + (database == 0 ? "" : "/" + database));
        }
    }

    private static @Nullable String string(Binder binder, String property) {
        return binder.bind(SPRING_DATA_REDIS + '.' + property, String.class).orElse(null);
    }

    private static List<String> list(Binder binder, String property) {
        return binder.bind(SPRING_DATA_REDIS + '.' + property, Bindable.listOf(String.class)).orElse(List.of());
    }

    /** {@return {@code user:password@}, {@code :password@} or empty, URL-encoded} */
    private static String credentials(@Nullable String username, @Nullable String password) {
        if (password == null) {
            return "";
        }
        return (username == null ? "" : encode(username)) + ':' + encode(password) + '@';
    }

    /** Cluster nodes may be given as host:port, as Spring Data Redis takes them. */
    private static String[] uris(List<String> nodes, @Nullable String credentials, boolean ssl) {
        List<String> uris = new ArrayList<>();
        for (String node : nodes) {
            uris.add(node.contains("://") ? node : (ssl ? "rediss://" : "redis://") + (credentials == null ? "" : credentials) + node);
        }
        return uris.toArray(String[]::new);
    }

    private static String sentinelUri(List<String> nodes, String master, @Nullable String username, @Nullable String password, boolean ssl,
                                      int database) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Sentinel master (" + master + ") needs the Sentinels: set sentinel.nodes");
        }
        return (ssl ? "rediss-sentinel://" : "redis-sentinel://") + credentials(username, password) + String.join(",", nodes)
                + (database == 0 ? "" : "/" + database) + '#' + master;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
