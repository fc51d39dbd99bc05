package io.latchkey.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chooses the {@code redis-server} executable that the fixture runs, and tells its version.
 *
 * <p>{@link #path()} decides in this order, reading the system properties on every call so that
 * a test or a build may switch binaries:
 * <ol>
 *   <li>{@value #SERVER_PROPERTY}: the path of an executable, used as given;</li>
 *   <li>{@value #EMBEDDED_PROPERTY}{@code =true}: the binary shipped by embedded-redis (Redis
 *       6.2), even when another is installed;</li>
 *   <li>{@code redis-server} on {@code PATH};</li>
 *   <li>the binary shipped by embedded-redis, on Linux and macOS.</li>
 * </ol>
 *
 * <p>Thread-safe. Versions are cached per executable path.
 */
public final class RedisBinary {

    /** System property naming the {@code redis-server} executable to use instead of any other. */
    public static final String SERVER_PROPERTY = "latchkey.redis.server";

    /** System property that, set to {@code true}, prefers the embedded binary over {@code PATH}. */
    public static final String EMBEDDED_PROPERTY = "latchkey.redis.embedded";

    private static final String EXECUTABLE = "redis-server";
    private static final long VERSION_TIMEOUT_SECONDS = 10;
    private static final Pattern VERSION = Pattern.compile("\\bv=(\\d+(?:\\.\\d+)*)");
    private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();

    private RedisBinary() {
    }

    /**
     * Returns the executable the next server will run.
     *
     * @return an executable file
     * @throws RedisFixtureException if {@value #SERVER_PROPERTY} names no executable, or no binary
     *         is available at all (none on {@code PATH} and none embedded for this platform)
     */
    public static Path path() {
        String override = System.getProperty(SERVER_PROPERTY);
        if (override != null && !override.isBlank()) {
            Path binary = Paths.get(override);
            if (!Files.isExecutable(binary)) {
                throw new RedisFixtureException(SERVER_PROPERTY + "=" + override + " is not an executable file");
            }
            return binary;
        }
        if (Boolean.getBoolean(EMBEDDED_PROPERTY)) {
            return embedded().orElseThrow(() -> new RedisFixtureException(EMBEDDED_PROPERTY
                    + "=true but embedded-redis has no binary for " + platform()));
        }
        return onPath()
                .or(RedisBinary::embedded)
                .orElseThrow(() -> new RedisFixtureException("no " + EXECUTABLE
                        + " on PATH and embedded-redis has no binary for " + platform()));
    }

    /**
     * Returns the binary that embedded-redis ships for this platform, extracting it on first use.
     *
     * @return the executable, or empty if there is none for this operating system and architecture
     * @throws RedisFixtureException if it exists but cannot be extracted
     */
    public static Optional<Path> embedded() {
        return EmbeddedBinary.path();
    }

    /**
     * Returns the version of the binary {@link #path()} chooses.
     *
     * @return a version such as {@code "7.0.15"}
     * @throws RedisFixtureException if there is no binary or its version cannot be read
     */
    public static String version() {
        return versionOf(path());
    }

    /**
     * Returns the version of a given {@code redis-server}, as {@code redis-server --version}
     * prints it.
     *
     * @param binary the executable, not null
     * @return a version such as {@code "6.2.11"}
     * @throws RedisFixtureException if the binary does not run or prints no version
     */
    public static String versionOf(Path binary) {
        return VERSIONS.computeIfAbsent(binary.toAbsolutePath(), RedisBinary::readVersion);
    }

    /**
     * Tells whether the binary {@link #path()} chooses has at least a given major version, for
     * example to skip a test that needs a Redis 7 command.
     *
     * @param major the lowest acceptable major version
     * @return whether the major version is {@code major} or higher
     * @throws RedisFixtureException if there is no binary or its version cannot be read
     */
    public static boolean atLeast(int major) {
        return majorOf(version()) >= major;
    }

    static int majorOf(String version) {
        int dot = version.indexOf('.');
        return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
            if (!dir.isEmpty()) {
                Path candidate = Paths.get(dir, EXECUTABLE);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private static String readVersion(Path binary) {
        // Output goes to a file rather than a pipe, so that the wait below is the only wait.
        Path output = null;
        try {
            output = Files.createTempFile("latchkey-redis-version-", ".txt");
            Process process = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            process.getOutputStream().close();
            if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new RedisFixtureException(binary + " --version did not exit within "
                        + VERSION_TIMEOUT_SECONDS + " s");
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            Matcher matcher = VERSION.matcher(text);
            if (!matcher.find()) {
                throw new RedisFixtureException(binary + " --version printed no version: " + text.strip());
            }
            return matcher.group(1);
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while running " + binary + " --version", e);
        } finally {
            deleteQuietly(output);
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // A leftover temp file of a few bytes is not worth failing a test for.
            }
        }
    }

    private static String platform() {
        return System.getProperty("os.name") + "/" + System.getProperty("os.arch");
    }
}
