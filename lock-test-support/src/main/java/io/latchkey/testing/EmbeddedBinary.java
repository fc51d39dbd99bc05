package io.latchkey.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code redis-server} binaries shipped as resources of the embedded-redis jar, extracted at
 * most once per JVM.
 *
 * <p>Thread-safe.
 */
final class EmbeddedBinary {

    /*
     * Resource names as embedded-redis 1.4.4 ships them; they change with its version, so a
     * dependency upgrade must revisit this table (the extraction fails loudly if one is missing).
     * Windows is left out on purpose: the fixture pauses and resumes servers with POSIX signals.
     */
    private static final Map<String, String> RESOURCE_BY_PLATFORM = Map.of(
            "linux-amd64", "redis-server-6.2.6-v5-linux-amd64",
            "linux-arm64", "redis-server-6.2.7-linux-arm64",
            "linux-386", "redis-server-6.2.7-linux-386",
            "darwin-amd64", "redis-server-6.2.6-v5-darwin-amd64",
            "darwin-arm64", "redis-server-6.2.6-v5-darwin-arm64");

    private static final Object LOCK = new Object();

    // Guarded by LOCK; set once, so every server of this JVM runs the same copy.
    private static Path extracted;

    private EmbeddedBinary() {
    }

    /**
     * Returns the binary for this platform, extracting it to a temporary directory on the first
     * call. The copy is deleted when the JVM exits.
     *
     * @return the executable, or empty if embedded-redis ships none for this platform
     * @throws RedisFixtureException if the resource is missing or cannot be written out
     */
    static Optional<Path> path() {
        Optional<String> resource = resourceFor(System.getProperty("os.name", ""),
                System.getProperty("os.arch", ""));
        if (resource.isEmpty()) {
            return Optional.empty();
        }
        synchronized (LOCK) {
            if (extracted == null) {
                extracted = extract(resource.get());
            }
            return Optional.of(extracted);
        }
    }

    /**
     * Names the resource that holds the binary for a platform.
     *
     * @param osName the value of {@code os.name}, not null
     * @param osArch the value of {@code os.arch}, not null
     * @return the resource name, or empty if there is none for that platform
     */
    static Optional<String> resourceFor(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String family = os.startsWith("linux") ? "linux"
                : os.contains("mac") || os.contains("darwin") ? "darwin"
                : null;
        String arch = normalizedArch(osArch.toLowerCase(Locale.ROOT));
        if (family == null || arch == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(RESOURCE_BY_PLATFORM.get(family + "-" + arch));
    }

    private static String normalizedArch(String arch) {
        switch (arch) {
            case "amd64":
            case "x86_64":
                return "amd64";
            case "aarch64":
            case "arm64":
                return "arm64";
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686":
                return "386";
            default:
                return null;
        }
    }

    private static Path extract(String resource) {
        try (InputStream in = EmbeddedBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new RedisFixtureException("resource " + resource
                        + " not on the class path; is com.github.codemonstur:embedded-redis 1.4.4 a dependency?");
            }
            Path dir = Files.createTempDirectory("latchkey-redis-bin-");
            Path binary = dir.resolve(resource);
            // Registered before the file, so that the file is deleted first.
            dir.toFile().deleteOnExit();
            binary.toFile().deleteOnExit();
            Files.copy(in, binary);
            Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwx------"));
            return binary;
        } catch (IOException | UnsupportedOperationException e) {
            throw new RedisFixtureException("cannot extract " + resource + " from the embedded-redis jar", e);
        }
    }
}
