package io.latchkey.modulepath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.latchkey.testing.RedisServer;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Latchkey works for an application on the module path with no flag at all: the application
 * module in {@code src/test/app} requires {@code io.latchkey.core} only, is compiled by
 * {@code javac} against the library's jars and runtime dependencies, and is run by
 * {@code java --module-path … -m app/app.Main} with nothing else (no {@code --add-modules},
 * {@code --add-opens} or {@code --add-reads}). It takes a plain, a fair and a Red lock against
 * real Redis servers; the fair lock and RedLock are found through their modules' services, which
 * the launcher binds by itself.
 *
 * <p>The module path is what Maven resolves for this module's runtime scope, written to a file
 * by the dependency plugin: the jars of lock-core, lock-fair and lock-redlock (or their class
 * directories in a reactor build that has not packaged them), Lettuce, Netty, Reactor and
 * SLF4J. The test fixture and JUnit are test scope and stay off it.
 */
class ModulePathTest {

    private static final long RUN_TIMEOUT_SECONDS = 60;

    @Test
    void applicationModuleRequiringCoreLocksEveryKindWithNoFlags(@TempDir Path dir) throws Exception {
        String modulePath = libraryModulePath();
        Path classes = dir.resolve("app");
        compileApplication(modulePath, classes);

        try (RedisServer first = RedisServer.start();
                RedisServer second = RedisServer.start();
                RedisServer third = RedisServer.start()) {
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            List<String> command = List.of(java.toString(),
                    "--module-path", modulePath + File.pathSeparator + classes,
                    "-m", "app/app.Main",
                    first.uri(), second.uri(), third.uri());
            Path output = dir.resolve("app.out");
            Process app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            boolean exited = app.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!exited) {
                app.destroyForcibly().waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            String context = "\ncommand: " + String.join(" ", command) + "\noutput:\n" + printed;
            assertTrue(exited, "the application did not end within " + RUN_TIMEOUT_SECONDS + " s" + context);
            assertEquals(0, app.exitValue(), "exit status" + context);
            assertTrue(printed.lines().anyMatch("OK"::equals), "the application finished its checks" + context);
        }
    }

    /** The library's runtime class path as the dependency plugin wrote it, checked for strays. */
    private static String libraryModulePath() throws IOException {
        String file = System.getProperty("latchkey.libraryModulePath");
        assertTrue(file != null && Files.isRegularFile(Path.of(file)),
                "run through Maven: the dependency plugin writes the module path to a file, got " + file);
        String modulePath = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
        List<String> entries = Arrays.asList(modulePath.split(File.pathSeparator));
        for (String module : List.of("lock-core", "lock-fair", "lock-redlock", "lettuce-core", "netty-handler")) {
            assertTrue(entries.stream().anyMatch(entry -> entry.contains(module)), module + " is on the module path: " + entries);
        }
        for (String testOnly : List.of("lock-tests", "junit", "embedded-redis", "slf4j-simple")) {
            assertFalse(entries.stream().anyMatch(entry -> entry.contains(testOnly)), testOnly + " is not on the module path: " + entries);
        }
        return modulePath;
    }

    private static void compileApplication(String modulePath, Path classes) throws IOException {
        Path sources = Path.of(System.getProperty("latchkey.applicationSources", "src/test/app"));
        List<String> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(path -> path.toString().endsWith(".java")).map(Path::toString).sorted().collect(Collectors.toList());
        }
        // javac run in this JVM would default its class path to the test's java.class.path: give
        // it an empty one, so that only the module path counts.
        Path emptyClassPath = Files.createDirectories(classes.resolveSibling("empty-class-path"));
        List<String> args = new ArrayList<>(List.of("--release", "17", "-Xlint:all", "-Werror",
                "--class-path", emptyClassPath.toString(), "--module-path", modulePath, "-d", classes.toString()));
        args.addAll(files);
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow(() -> new AssertionError("no javac in " + System.getProperty("java.home")));
        StringWriter messages = new StringWriter();
        int status;
        try (PrintWriter out = new PrintWriter(messages)) {
            status = javac.run(out, out, args.toArray(String[]::new));
        }
        assertEquals(0, status, "javac " + String.join(" ", args) + "\n" + messages);
    }
}
