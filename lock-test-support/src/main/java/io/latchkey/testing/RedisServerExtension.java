package io.latchkey.testing;

import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link WithRedisServer}: one real {@code redis-server} for the test
 * run, its URI in a system property while each annotated class runs, and the {@link RedisServer}
 * for parameters of that type. Registered by {@code @WithRedisServer}, or directly with
 * {@code @ExtendWith(RedisServerExtension.class)} (then the property is {@code latchkey.address}).
 *
 * <p>The server is kept in the store of the run's root context, which JUnit 5.13 and newer close
 * when the run ends, and so stop the server; the fixture's shutdown hook kills it at the latest
 * when the JVM exits. The system property is set before the class's first test and put back as it
 * was after its last, so that classes that do not ask for Redis never see it. Thread-safe: classes
 * running in parallel share the one server (the property, being the JVM's, is shared too).
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisServerExtension.class);
    private static final String PREVIOUS = "previous property value";

    /** Made by JUnit. */
    public RedisServerExtension() {
    }

    /**
     * Returns the run's server, starting it on first use.
     *
     * @param context any context of the run
     * @return the running server, the same for the whole run
     * @throws RedisFixtureException if no {@code redis-server} can be run, or it does not come up
     */
    public static RedisServer server(ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        // get and put rather than the store's compute methods, which JUnit 5.13 and JUnit 6 name
        // differently (Spring Boot 4 runs its tests on JUnit 6): the extension works on both.
        synchronized (RedisServerExtension.class) {
            Shared shared = store.get(Shared.class, Shared.class);
            if (shared == null) {
                shared = new Shared(RedisServer.start());
                store.put(Shared.class, shared);
            }
            return shared.server();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        String uri = server(context).uri();
        String property = property(context);
        // Kept per class, as {value} or absent, so that afterAll restores it exactly.
        context.getStore(NAMESPACE).put(PREVIOUS, Optional.ofNullable(System.getProperty(property)));
        System.setProperty(property, uri);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        String property = property(context);
        Optional<?> previous = context.getStore(NAMESPACE).remove(PREVIOUS, Optional.class);
        if (previous == null || previous.isEmpty()) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, (String) previous.get());
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return server(extensionContext);
    }

    /** The annotation's property, of the class or, for a {@code @Nested} class, of the class it is in. */
    private static String property(ExtensionContext context) {
        for (Class<?> type = context.getTestClass().orElse(null); type != null; type = type.getEnclosingClass()) {
            Optional<WithRedisServer> found = AnnotationSupport.findAnnotation(type, WithRedisServer.class);
            if (found.isPresent()) {
                return found.get().property();
            }
        }
        return "latchkey.address";
    }

    /** The run's server, closed with the root context's store (JUnit 5.13 and 6 close stored {@link AutoCloseable}s). */
    private record Shared(RedisServer server) implements AutoCloseable {
        @Override
        public void close() {
            server.close();
        }
    }
}
