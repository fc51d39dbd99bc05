package io.latchkey.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** The test application: the auto-configuration, a meter registry and one {@code @Locked} bean. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TestApplication {

    @Bean
    MeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }

    @Bean
    OrderService orderService() {
        return new OrderService();
    }

    /** @return a running application with these properties, each {@code key=value} */
    static ConfigurableApplicationContext run(String... properties) {
        return new SpringApplicationBuilder(TestApplication.class).web(WebApplicationType.NONE)
                .bannerMode(org.springframework.boot.Banner.Mode.OFF).logStartupInfo(false).properties(properties).run();
    }

    /** @return a running application with the beans of {@code more} too, and these properties */
    static ConfigurableApplicationContext run(Class<?> more, String... properties) {
        return new SpringApplicationBuilder(TestApplication.class, more).web(WebApplicationType.NONE)
                .bannerMode(org.springframework.boot.Banner.Mode.OFF).logStartupInfo(false).properties(properties).run();
    }
}
