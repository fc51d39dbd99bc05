package io.latchkey.spring;

import io.latchkey.LockClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The Actuator endpoint {@code latchkey} ({@link LatchkeyEndpoint}), when the application has
 * Actuator and the endpoint is available (enabled and exposed, as
 * {@code management.endpoints.web.exposure.include=latchkey} exposes it over HTTP). Its own
 * auto-configuration, checked by class name first, so that an application without Actuator never
 * loads a class that names Actuator's types.
 */
@AutoConfiguration(after = LatchkeyAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
public class LatchkeyEndpointAutoConfiguration {

    /** Made by Spring. */
    public LatchkeyEndpointAutoConfiguration() {
    }

    /**
     * The endpoint, with its force-unlock operation only if {@code latchkey.endpoint.force-unlock.enabled=true}.
     *
     * @param client the application's client
     * @param properties {@code latchkey.*}, for {@code latchkey.endpoint.*}
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnAvailableEndpoint
    public LatchkeyEndpoint latchkeyEndpoint(LockClient client, LatchkeyProperties properties) {
        // Two classes rather than a write operation that refuses: an operation that is off does not
        // exist, so no exposure, access setting or security rule can reach it by mistake.
        return properties.getEndpoint().getForceUnlock().isEnabled() ? new ForceUnlockingLatchkeyEndpoint(client)
                : new LatchkeyEndpoint(client);
    }
}
