package io.latchkey.spring;

import io.latchkey.LockClient;
import java.util.function.Supplier;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/**
 * Proxies every bean with a {@link Locked @Locked} method or class, the way Spring proxies
 * {@code @Async} and {@code @Validated} beans: on its own, whether or not the application has an
 * auto-proxy creator or AspectJ.
 */
final class LockedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    /** Shared with the interceptor, which finds them parsed. */
    private final transient LockedMethods methods = new LockedMethods();

    /**
     * @param client the application's client, looked up at the first call
     * @param releases the releases put off by {@code lockAtLeastFor}, looked up at the first such call
     */
    LockedPostProcessor(Supplier<LockClient> client, Supplier<DeferredReleases> releases) {
        this.advisor = new DefaultPointcutAdvisor(new LockedPointcut(), new LockedInterceptor(client, methods, releases));
        // Ahead of other advisors on the same proxy (@Transactional, say): the lock is taken
        // before a transaction begins and released after it ends.
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
    }

    /** Durations may be {@code ${...}} placeholders, resolved as {@code @Scheduled}'s are. */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            methods.resolvePlaceholdersWith(configurable::resolveEmbeddedValue);
        }
    }

    /**
     * Parses the {@code @Locked} methods of every bean it proxies first, so that a malformed
     * annotation ({@code onTimeout = SKIP} on a method returning a primitive, a name that refers
     * to no parameter, a bad duration) fails the start of the application, naming the method,
     * instead of the method's first call, which may come days later.
     */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (isEligible(bean, beanName)) {
            methods.checkAll(AopUtils.getTargetClass(bean));
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }
}
