package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockEventListener;
import io.latchkey.testing.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * What an application gets from the starter's own dependencies, with nothing of this module's
 * optional ones but Micrometer, which the application brings (Actuator does).
 */
class StarterDependenciesTest {

    @Test
    void anApplicationWithAMeterRegistryGetsTheMetersFromTheStarterAlone() {
        // Micrometer as Actuator brings it: micrometer-core brings micrometer-observation.
        StarterClassPath classPath = StarterClassPath.withApplicationsOwn(Set.of("micrometer-core", "micrometer-observation"));
        try (RedisServer redis = RedisServer.start();
             ConfigurableApplicationContext app = new SpringApplicationBuilder(TestApplication.class)
                     .resourceLoader(new DefaultResourceLoader(classPath)).web(WebApplicationType.NONE)
                     .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                     .properties("latchkey.address=" + redis.uri()).run()) {
            assertThat(app.getBeanNamesForType(LockEventListener.class))
                    .as("the listeners with the class path less %s", classPath.hidden())
                    .contains("latchkeyMicrometerLockEvents", "latchkeyLockObservations");
            app.getBean(OrderService.class).ship(new OrderService.Order(1));
            MeterRegistry registry = app.getBean(MeterRegistry.class);
            // An acquisition's end is told on the thread that completes it: awaited, not read at once.
            await().untilAsserted(() -> assertThat(registry.find("latchkey.lock.acquire").tag("outcome", "acquired").timer())
                    .isNotNull());
        }
    }

    @Test
    void anApplicationWithoutActuatorStartsWithoutTheEndpointEvenIfItAsksForIt() {
        StarterClassPath classPath = StarterClassPath.withApplicationsOwn(Set.of());
        assertThat(classPath.hidden()).contains("/spring-boot-actuator/", "/spring-boot-actuator-autoconfigure/");
        try (RedisServer redis = RedisServer.start();
             ConfigurableApplicationContext app = run(classPath, "latchkey.address=" + redis.uri(), "spring.jmx.enabled=true",
                     "management.endpoints.jmx.exposure.include=latchkey", "latchkey.endpoint.force-unlock.enabled=true")) {
            assertThat(app.containsBean("latchkeyEndpoint")).isFalse();
            assertThat(classPath.hidden()).contains("/micrometer-core/", "/micrometer-observation/");
            assertThat(app.getBeanNamesForType(LockEventListener.class)).as("no Micrometer, no meters or observations").isEmpty();
            assertThat(app.getBean(OrderService.class).ship(new OrderService.Order(2)).fencingToken()).isPositive();
        }
    }

    @Test
    void anApplicationWithActuatorGetsTheEndpointFromTheStarterAlone() {
        StarterClassPath classPath = StarterClassPath.withApplicationsOwn(Set.of("micrometer-core", "spring-boot-health",
                "spring-boot-actuator", "spring-boot-actuator-autoconfigure"));
        try (RedisServer redis = RedisServer.start();
             ConfigurableApplicationContext app = run(classPath, "latchkey.address=" + redis.uri(), "spring.jmx.enabled=true",
                     "management.endpoints.jmx.exposure.include=latchkey")) {
            assertThat(app.containsBean("latchkeyEndpoint")).isTrue();
        }
    }

    private static ConfigurableApplicationContext run(StarterClassPath classPath, String... properties) {
        return new SpringApplicationBuilder(TestApplication.class).resourceLoader(new DefaultResourceLoader(classPath))
                .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false).properties(properties).run();
    }
}
