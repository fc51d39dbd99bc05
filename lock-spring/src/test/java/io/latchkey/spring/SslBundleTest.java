package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.testing.TlsRedisServer;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * TLS as Boot users configure it: an SSL bundle named by {@code spring.data.redis.ssl.bundle}
 * turns TLS on and supplies the trust, as Boot's own Redis support does; {@code latchkey.ssl.*}
 * does the same for Latchkey's own addresses. Against a real TLS Redis whose only port is TLS,
 * so that a client that does not use TLS cannot connect (issue 27, finding 3).
 */
class SslBundleTest {

    private static TlsRedisServer redis;

    @BeforeAll
    static void startRedis() {
        Optional<String> unavailable = TlsRedisServer.unavailableReason();
        assumeTrue(unavailable.isEmpty(), () -> "no TLS server on this host: " + unavailable.orElse(""));
        redis = TlsRedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private String bundle() {
        return "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + redis.caCertificate();
    }

    @Test
    void aBundleAloneTurnsTlsOnAndTrustsItsCertificates() {
        // Before: only spring.data.redis.ssl.enabled turned TLS on, so with a bundle alone the
        // starter connected with redis:// and sent HELLO AUTH with the password in clear.
        try (ConfigurableApplicationContext app = TestApplication.run("spring.data.redis.host=localhost",
                "spring.data.redis.port=" + redis.tlsPort(), "spring.data.redis.ssl.bundle=redis", bundle())) {
            assertThat(app.getBean(LockConfig.class).address()).hasValueSatisfying(uri -> assertThat(uri).startsWith("rediss://"));
            assertLocksOverTls(app);
        }
    }

    @Test
    void aBundleTurnsTlsOnForASpringDataRedisUrlToo() {
        try (ConfigurableApplicationContext app = TestApplication.run("spring.data.redis.url=redis://localhost:" + redis.tlsPort(),
                "spring.data.redis.ssl.bundle=redis", bundle())) {
            assertLocksOverTls(app);
        }
    }

    @Test
    void latchkeysOwnAddressTakesABundleOrACertificateFile() {
        try (ConfigurableApplicationContext app = TestApplication.run("latchkey.address=rediss://localhost:" + redis.tlsPort(),
                "latchkey.ssl.bundle=redis", bundle())) {
            assertLocksOverTls(app);
        }
        try (ConfigurableApplicationContext app = TestApplication.run("latchkey.address=rediss://localhost:" + redis.tlsPort(),
                "latchkey.ssl.trusted-certificates=" + redis.caCertificate())) {
            assertLocksOverTls(app);
        }
    }

    @Test
    void tlsMaterialForAnAddressWithoutTlsOrAMissingBundleFailsTheStart() {
        assertThatThrownBy(() -> TestApplication.run("latchkey.address=redis://localhost:" + redis.tlsPort(),
                "latchkey.ssl.bundle=redis", bundle()).close())
                .hasStackTraceContaining("latchkey.ssl.* is set, but latchkey.address do not use TLS");
        assertThatThrownBy(() -> TestApplication.run("spring.data.redis.port=" + redis.tlsPort(),
                "spring.data.redis.ssl.bundle=nonesuch", bundle()).close())
                .hasStackTraceContaining("nonesuch");
    }

    private void assertLocksOverTls(ConfigurableApplicationContext app) {
        LockClient client = app.getBean(LockClient.class);
        try (LockHold hold = client.getLock("tls-bundle").acquire()) {
            assertThat(hold.fencingToken()).isPositive();
            assertThat(client.getLock("tls-bundle").isLocked()).isTrue();
        }
        assertThat(String.valueOf(redis.server().command("CLIENT", "LIST"))).contains("laddr=127.0.0.1:" + redis.tlsPort());
    }
}
