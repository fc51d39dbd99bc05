package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockEventListener;
import io.latchkey.micrometer.LockAcquireConvention;
import io.latchkey.micrometer.LockHoldConvention;
import io.latchkey.micrometer.LockObservations;
import io.latchkey.micrometer.MicrometerLockEvents;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;

/**
 * Latchkey for a Spring Boot application: a {@link LockConfig} from {@code latchkey.*} (or
 * {@code spring.data.redis.*}), a {@link LockClient} closed with the context, {@link Locked @Locked}
 * methods, meters when a {@code MeterRegistry} bean exists, observations when an
 * {@code ObservationRegistry} bean exists, and a health contributor when Spring Boot's health
 * support is present. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@EnableConfigurationProperties(LatchkeyProperties.class)
public class LatchkeyAutoConfiguration {

    /** Made by Spring. */
    public LatchkeyAutoConfiguration() {
    }

    /**
     * The client's configuration, with every {@link LockEventListener} bean as its listener.
     *
     * @param properties {@code latchkey.*}
     * @param environment for the {@code spring.data.redis.*} fallback
     * @param listeners every {@link LockEventListener} bean, told in their order
     * @param sslBundles Spring Boot's SSL bundles, for {@code spring.data.redis.ssl.bundle} and {@code latchkey.ssl.bundle}
     * @return the client's configuration
     */
    @Bean
    @ConditionalOnMissingBean
    public LockConfig latchkeyLockConfig(LatchkeyProperties properties, Environment environment,
                                         ObjectProvider<LockEventListener> listeners, ObjectProvider<SslBundles> sslBundles) {
        return LockConfigFactory.create(properties, environment, CompositeLockEventListener.of(listeners.orderedStream().toList()),
                sslBundles.getIfAvailable());
    }

    /**
     * The application's client: connected, or, with {@code latchkey.startup.fail-if-unreachable=false}
     * and Redis unreachable, one that connects once Redis can be reached.
     *
     * @param config the configuration
     * @param properties {@code latchkey.*}, for {@code latchkey.startup.*}
     * @return the client; closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LockClient lockClient(LockConfig config, LatchkeyProperties properties) {
        if (properties.getStartup().isFailIfUnreachable()) {
            return LockClient.create(config);
        }
        return ConnectingLockClient.connect(() -> LockClient.create(config), config.redisTarget());
    }

    /**
     * Static, as bean post-processors must be: the client is looked up at the first
     * {@code @Locked} call, so this does not make it early.
     *
     * @param client the application's client
     * @param releases the releases that {@code lockAtLeastFor} puts off
     * @return the post-processor that proxies {@code @Locked} beans
     */
    @Bean
    @ConditionalOnMissingBean(name = "latchkeyLockedPostProcessor")
    public static LockedPostProcessor latchkeyLockedPostProcessor(ObjectProvider<LockClient> client,
                                                                  ObjectProvider<DeferredReleases> releases) {
        return new LockedPostProcessor(client::getObject, releases::getObject);
    }

    /**
     * The releases that {@link Locked#lockAtLeastFor()} puts off, done at once when the context
     * closes. The client is a parameter so that Spring closes this before the client: the
     * releases still need it.
     *
     * @param client the application's client
     * @return the releases put off; their thread is made at the first one
     */
    @Bean(destroyMethod = "close")
    public DeferredReleases latchkeyDeferredReleases(LockClient client) {
        return DeferredReleases.onTheirOwnThread();
    }

    /**
     * Meters, through lock-micrometer, which the starter brings: what decides is the application's
     * Micrometer and its {@code MeterRegistry} bean. The condition on {@link MicrometerLockEvents}
     * only matters to an application that excluded lock-micrometer.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MicrometerLockEvents.class})
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnProperty(name = "latchkey.metrics.enabled", havingValue = "true", matchIfMissing = true)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        MicrometerLockEvents latchkeyMicrometerLockEvents(MeterRegistry registry, LatchkeyProperties properties) {
            return properties.getMetrics().isLockNameTag() ? MicrometerLockEvents.withLockNames(registry, properties.getMetrics().getMaxLockNames())
                    : MicrometerLockEvents.of(registry);
        }
    }

    /**
     * Observations of acquisitions and holds, for traces, through lock-micrometer, next to the
     * meters above (both listeners are told, in the composite of every listener bean). Their
     * names are not those of the meters: Boot's meter handler makes timers of observations, and
     * a timer {@code latchkey.lock.acquire} with other tag keys than the meters' would be refused.
     * A {@link LockAcquireConvention} or {@link LockHoldConvention} bean, if there is one of a
     * type, is the convention of those observations; else a {@code GlobalObservationConvention}
     * of the registry applies, else the default.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ObservationRegistry.class, LockObservations.class})
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnProperty(name = "latchkey.observations.enabled", havingValue = "true", matchIfMissing = true)
    static class Observations {

        @Bean
        @ConditionalOnMissingBean
        LockObservations latchkeyLockObservations(ObservationRegistry registry, LatchkeyProperties properties,
                                                  ObjectProvider<LockAcquireConvention> acquireConvention,
                                                  ObjectProvider<LockHoldConvention> holdConvention) {
            return LockObservations.builder(registry).lockNames(properties.getObservations().isLockName())
                    .acquireConvention(acquireConvention.getIfUnique()).holdConvention(holdConvention.getIfUnique()).build();
        }
    }

    /** The health contributor {@code latchkey}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "latchkeyHealthIndicator")
        LatchkeyHealthIndicator latchkeyHealthIndicator(LockClient client, LockConfig config) {
            return new LatchkeyHealthIndicator(client, config.redisTarget());
        }
    }
}
