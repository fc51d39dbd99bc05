package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * The starter's own classes without Reactor: Reactor is an optional dependency of the starter
 * (Lettuce brings it today, and the starter does not count on that), used only by
 * {@code @Locked} methods that return {@code Mono} or {@code Flux}. Here the starter's classes
 * are loaded by a class loader of their own that refuses Reactor to them, and an application with
 * blocking and {@code CompletableFuture} {@code @Locked} methods starts and runs.
 */
class StarterWithoutReactorTest {

    @Test
    void anApplicationWithoutReactiveMethodsNeverLoadsReactor() throws Exception {
        WithoutReactor classPath = new WithoutReactor(StarterWithoutReactorTest.class.getClassLoader());
        Class<?> application = classPath.loadClass(TestApplication.class.getName());
        assertThat(application.getClassLoader()).isSameAs(classPath);
        try (RedisServer redis = RedisServer.start();
             ConfigurableApplicationContext app = new SpringApplicationBuilder(application)
                     .resourceLoader(new DefaultResourceLoader(classPath)).web(WebApplicationType.NONE)
                     .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                     .properties("latchkey.address=" + redis.uri()).run();
             LockClient other = LockClient.create(redis.uri())) {
            Object orders = app.getBean(classPath.loadClass(OrderService.class.getName()));
            orders.getClass().getMethod("count").invoke(orders);
            Method later = orders.getClass().getMethod("later", String.class, CompletableFuture.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<?> pending = (CompletableFuture<?>) later.invoke(orders, "without-reactor", work);
            assertThat(other.getLock("async:without-reactor").isLocked()).isTrue();
            work.complete("done");
            assertThat(pending.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(other.getLock("async:without-reactor").isLocked()).isFalse();
        }
        assertThat(classPath.defined).as("the starter's classes came from the class loader without Reactor")
                .contains(LatchkeyAutoConfiguration.class.getName(), LockedInterceptor.class.getName())
                .doesNotContain(ReactiveLocking.class.getName());
        // Spring Boot's conditions looked for Reactor through the same class loader and did not find it.
        assertThat(classPath.refused).as("Reactor was hidden").isNotEmpty();
    }

    /**
     * Defines the starter's classes (and this module's test classes) itself, from the same class
     * files, and refuses them Reactor; everything else (Spring, Latchkey's core, Lettuce, which
     * does use Reactor) comes from the parent.
     */
    private static final class WithoutReactor extends ClassLoader {

        private static final String STARTER = "io.latchkey.spring.";
        private static final List<String> REACTOR = List.of("reactor.", "org.reactivestreams.");

        final Set<String> defined = ConcurrentHashMap.newKeySet();
        final List<String> refused = new CopyOnWriteArrayList<>();

        WithoutReactor(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (REACTOR.stream().anyMatch(name::startsWith)) {
                refused.add(name);
                throw new ClassNotFoundException(name + " is not on this class path");
            }
            if (!name.startsWith(STARTER)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = defineStarterClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        private Class<?> defineStarterClass(String name) throws ClassNotFoundException {
            try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                if (in == null) {
                    throw new ClassNotFoundException(name);
                }
                byte[] bytes = in.readAllBytes();
                defined.add(name);
                return defineClass(name, bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
