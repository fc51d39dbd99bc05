package io.latchkey.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A {@link RedisServer} that also listens for TLS on a port of its own, with a certificate made
 * for this run by a throw-away certificate authority: {@link #tlsUri()} speaks only TLS, while
 * the plain {@link #server()} port stays open for the fixture's own commands.
 *
 * <p>The certificate authority and the server certificate (for {@code 127.0.0.1} and
 * {@code localhost}) are generated with the {@code openssl} command line tool; so is a second,
 * unrelated authority, {@link #otherCaCertificate()}, that trusts nothing this server shows.
 * {@link #unavailableReason()} tells whether the host can run one at all: it needs
 * {@code openssl} on {@code PATH} and a {@code redis-server} built with TLS (Debian's and the
 * embedded 6.2 binary both are; a server built from source without {@code BUILD_TLS=yes} is not).
 *
 * <p>Thread-safe. Always {@link #close()} it: that stops the server and deletes the certificates.
 */
public final class TlsRedisServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final long OPENSSL_TIMEOUT_SECONDS = 30;
    private static final Object PROBE_LOCK = new Object();

    // Guarded by PROBE_LOCK: the reason found for the binary probed last, by path.
    private static Path probedBinary;
    private static Optional<String> probedReason;

    private final RedisServer server;
    private final int tlsPort;
    private final Path certificates;

    private TlsRedisServer(RedisServer server, int tlsPort, Path certificates) {
        this.server = server;
        this.tlsPort = tlsPort;
        this.certificates = certificates;
    }

    /**
     * Tells why no TLS server can run here, so that a test can skip with that reason.
     *
     * @return the reason, or empty if {@link #start(String...)} can work
     */
    public static Optional<String> unavailableReason() {
        if (findOpenssl().isEmpty()) {
            return Optional.of("no openssl on PATH to make a test certificate");
        }
        Path binary = RedisBinary.path();
        synchronized (PROBE_LOCK) {
            if (!binary.equals(probedBinary)) {
                probedReason = probeTls(binary);
                probedBinary = binary;
            }
            return probedReason;
        }
    }

    /**
     * Makes the certificates and starts the server with a TLS port that does not ask clients
     * for certificates.
     *
     * @param extraArgs arguments appended to the command line, for example an ACL user
     * @return the running server
     * @throws RedisFixtureException if {@link #unavailableReason()} has one, or the server does not come up
     */
    public static TlsRedisServer start(String... extraArgs) {
        unavailableReason().ifPresent(reason -> {
            throw new RedisFixtureException("cannot start a TLS server: " + reason);
        });
        Path dir;
        try {
            dir = Files.createTempDirectory("latchkey-tls-");
        } catch (IOException e) {
            throw new RedisFixtureException("cannot create a directory for certificates", e);
        }
        try {
            makeCertificates(dir);
            int tlsPort = FreePorts.pick(HOST);
            List<String> args = new ArrayList<>(List.of(
                    "--tls-port", Integer.toString(tlsPort),
                    "--tls-cert-file", dir.resolve("server.pem").toString(),
                    "--tls-key-file", dir.resolve("server.key").toString(),
                    "--tls-ca-cert-file", dir.resolve("ca.pem").toString(),
                    "--tls-auth-clients", "no"));
            args.addAll(List.of(extraArgs));
            RedisServer server = RedisServer.start(args.toArray(String[]::new));
            return new TlsRedisServer(server, tlsPort, dir);
        } catch (RuntimeException | Error e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    /** @return the server, whose {@link RedisServer#uri()} is the plain port */
    public RedisServer server() {
        return server;
    }

    /** @return the port that speaks only TLS */
    public int tlsPort() {
        return tlsPort;
    }

    /** @return {@code rediss://127.0.0.1:<tlsPort>} */
    public String tlsUri() {
        return "rediss://" + HOST + ":" + tlsPort;
    }

    /** @return the PEM certificate of the authority that signed the server's certificate */
    public Path caCertificate() {
        return certificates.resolve("ca.pem");
    }

    /** @return the PEM certificate of an authority that did not sign anything this server shows */
    public Path otherCaCertificate() {
        return certificates.resolve("other-ca.pem");
    }

    /** Stops the server and deletes the certificates; idempotent, never throws. */
    @Override
    public void close() {
        server.close();
        deleteQuietly(certificates);
    }

    @Override
    public String toString() {
        return server + " with TLS on " + tlsPort;
    }

    private static void makeCertificates(Path dir) {
        String openssl = findOpenssl().orElseThrow().toString();
        List<String> ec = List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes");
        for (String ca : List.of("ca", "other-ca")) {
            List<String> command = new ArrayList<>(List.of(openssl, "req", "-x509"));
            command.addAll(ec);
            command.addAll(List.of("-keyout", ca + ".key", "-out", ca + ".pem", "-days", "2",
                    "-subj", "/CN=Latchkey test " + ca));
            run(dir, command);
        }
        List<String> request = new ArrayList<>(List.of(openssl, "req"));
        request.addAll(ec);
        request.addAll(List.of("-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"));
        run(dir, request);
        try {
            Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                    + "extendedKeyUsage=serverAuth\n", StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new RedisFixtureException("cannot write the certificate extensions", e);
        }
        run(dir, List.of(openssl, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext"));
    }

    private static Optional<String> probeTls(Path binary) {
        // A TLS build starts the config check and exits for having no port; one without TLS
        // rejects the directive. Either way the process ends at once.
        Path output = null;
        try {
            output = Files.createTempFile("latchkey-tls-probe-", ".txt");
            Process process = new ProcessBuilder(binary.toString(), "--port", "0", "--tls-port", "0", "--save", "")
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.of(binary + " did not exit when probed for TLS support");
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            if (text.contains("Bad directive") || text.contains("not supported") || text.contains("Unrecognized")) {
                return Optional.of(binary + " (" + RedisBinary.versionOf(binary) + ") is built without TLS");
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("cannot probe " + binary + " for TLS: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while probing " + binary + " for TLS");
        } finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

    private static void run(Path dir, List<String> command) {
        try {
            Path output = dir.resolve("openssl.log");
            Process process = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            process.getOutputStream().close();
            if (!process.waitFor(OPENSSL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new RedisFixtureException(String.join(" ", command) + " did not finish in " + OPENSSL_TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new RedisFixtureException(String.join(" ", command) + " failed: "
                        + Files.readString(output, StandardCharsets.UTF_8).strip());
            }
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while running openssl", e);
        }
    }

    private static Optional<Path> findOpenssl() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Arrays.stream(path.split(Pattern.quote(File.pathSeparator)))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Paths.get(dir, "openssl"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    private static void deleteQuietly(Path dir) {
        File[] files = dir.toFile().listFiles();
        if (files != null) {
            for (File file : files) {
                file.delete();
            }
        }
        dir.toFile().delete();
    }
}
