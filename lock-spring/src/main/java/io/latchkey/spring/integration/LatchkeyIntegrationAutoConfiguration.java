package io.latchkey.spring.integration;

import io.latchkey.LockClient;
import io.latchkey.spring.LatchkeyAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * With Spring Integration on the class path and no {@link LockRegistry} of the application's
 * own, the application's Latchkey client is its lock registry (plain locks).
 */
@AutoConfiguration(after = LatchkeyAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(LockClient.class)
public class LatchkeyIntegrationAutoConfiguration {

    /** Nothing to set: Spring makes it. */
    public LatchkeyIntegrationAutoConfiguration() {
    }

    /**
     * The application's lock registry.
     *
     * @param client the application's client
     * @return its plain locks as a lock registry
     */
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    public LatchkeyLockRegistry latchkeyLockRegistry(LockClient client) {
        return LatchkeyLockRegistry.of(client);
    }
}
