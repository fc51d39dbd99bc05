package io.latchkey.spring;

import io.latchkey.LockClient;
import java.util.function.Supplier;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;

/**
 * Proxies every bean with a {@link Locked @Locked} method or class, the way Spring proxies
 * {@code @Async} and {@code @Validated} beans: on its own, whether or not the application has an
 * auto-proxy creator or AspectJ.
 */
final class LockedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    LockedPostProcessor(Supplier<LockClient> client) {
        this.advisor = new DefaultPointcutAdvisor(new LockedPointcut(), new LockedInterceptor(client, new LockedMethods()));
        // Ahead of other advisors on the same proxy (@Transactional, say): the lock is taken
        // before a transaction begins and released after it ends.
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
    }
}
