package io.latchkey.spring;

import java.lang.reflect.Method;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

/** The methods that {@link Locked @Locked} locks, as {@link LockedMethods#annotationOf} decides. Stateless. */
final class LockedPointcut extends StaticMethodMatcherPointcut {

    LockedPointcut() {
        // Skips the JDK's own types without looking at their methods.
        setClassFilter(type -> AnnotationUtils.isCandidateClass(type, Locked.class));
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return LockedMethods.annotationOf(method, targetClass == null ? method.getDeclaringClass() : targetClass) != null;
    }
}
