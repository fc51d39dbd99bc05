package io.latchkey.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;
import org.jspecify.annotations.Nullable;

/**
 * Which methods {@link Locked @Locked} locks, and each one's parsed annotation: the one rule that
 * the pointcut, the start-up check and the interceptor share, so that they never disagree.
 * Thread-safe.
 *
 * <p>A method is locked by its own annotation (or one on a method it overrides or implements),
 * else by its class's. A class's annotation covers the class's public instance methods except
 * those that {@link Object} declares ({@code toString}, {@code equals}, {@code hashCode}, also
 * when the class overrides them): a log line or a hash lookup must not wait for a lock, nor be
 * refused one.
 *
 * <p>Parsed annotations are kept per method and class: a method that several classes inherit is
 * locked as each class's annotation says.
 */
final class LockedMethods {

    private final Map<MethodClassKey, LockedMethod> parsed = new ConcurrentHashMap<>();
    /** Resolves {@code ${...}} in the durations; set once, before the first bean is checked. */
    private volatile UnaryOperator<String> placeholders = UnaryOperator.identity();

    /**
     * @param placeholders resolves {@code ${...}} in the annotations' durations from the
     *     application's environment
     */
    void resolvePlaceholdersWith(UnaryOperator<String> placeholders) {
        this.placeholders = placeholders;
    }

    /**
     * @param method a method, as declared anywhere in {@code targetClass}'s hierarchy
     * @param targetClass the class of the bean it is called on
     * @return the annotation that locks it there, or null if none does
     */
    static @Nullable Locked annotationOf(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        Locked own = AnnotatedElementUtils.findMergedAnnotation(specific, Locked.class);
        if (own != null) {
            return own;
        }
        return coveredByItsClass(specific) ? AnnotatedElementUtils.findMergedAnnotation(targetClass, Locked.class) : null;
    }

    /**
     * @param method a method that {@link #annotationOf} locks on {@code targetClass}
     * @param targetClass the class of the bean it is called on
     * @return the method's parsed annotation
     * @throws IllegalStateException naming the method if its annotation is malformed
     */
    LockedMethod get(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        return parsed.computeIfAbsent(new MethodClassKey(specific, targetClass),
                key -> LockedMethod.of(specific, Objects.requireNonNull(annotationOf(specific, targetClass),
                        "the interceptor is called only for the methods that LockedPointcut matched"), placeholders));
    }

    /**
     * Parses the annotation of every method that a proxy of {@code targetClass} locks, so that a
     * malformed one fails the application's start rather than the method's first call.
     *
     * @param targetClass the class of a bean about to be proxied
     * @throws IllegalStateException naming the first method whose annotation is malformed
     */
    void checkAll(Class<?> targetClass) {
        ReflectionUtils.doWithMethods(targetClass, method -> get(method, targetClass),
                method -> proxyCanCall(method) && annotationOf(method, targetClass) != null);
    }

    /** Private and static methods never reach a proxy; bridges stand for the methods they bridge to. */
    private static boolean proxyCanCall(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isPrivate(modifiers) && !Modifier.isStatic(modifiers) && !method.isBridge() && !method.isSynthetic();
    }

    private static boolean coveredByItsClass(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !declaredByObject(method);
    }

    /** By signature: a bean's own {@code toString()} overrides Object's and is still one of Object's methods. */
    private static boolean declaredByObject(Method method) {
        return ReflectionUtils.findMethod(Object.class, method.getName(), method.getParameterTypes()) != null;
    }
}
