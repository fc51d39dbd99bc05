package io.latchkey.spring;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.jspecify.annotations.Nullable;

/**
 * One {@link Locked @Locked} method, its annotation parsed once: the name expression, the
 * durations, and how its results look. A bad annotation fails the parse with an
 * {@link IllegalStateException} naming the method, which {@link LockedPostProcessor} does at the
 * application's start. Immutable.
 */
final class LockedMethod {

    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;
    private final Locked locked;
    private final LockNameTemplate name;
    private final Duration waitTime;
    /** Null for the watchdog lease. */
    private final @Nullable Duration leaseTime;
    /** Null when the release is not put off. */
    private final @Nullable Duration lockAtLeastFor;
    private final boolean async;
    /** Returns Reactor's {@code Mono} or {@code Flux}: told by name, so that nothing loads Reactor's classes. */
    private final boolean reactive;
    private final boolean returnsMono;

    private LockedMethod(Method method, Locked locked, UnaryOperator<String> placeholders) {
        this.method = method;
        this.locked = locked;
        this.name = LockNameTemplate.parse(method, locked.name(), PARAMETER_NAMES.getParameterNames(method));
        Duration wait;
        try {
            wait = duration(locked.waitTime(), placeholders);
            this.leaseTime = duration(locked.leaseTime(), placeholders);
            this.lockAtLeastFor = duration(locked.lockAtLeastFor(), placeholders);
        } catch (RuntimeException e) {
            throw invalid(String.valueOf(e.getMessage()), e);
        }
        if (wait == null) {
            throw invalid("waitTime must not be empty: " + locked.waitTime(), null);
        }
        this.waitTime = wait;
        if (waitTime.isNegative()) {
            throw invalid("waitTime must not be negative: " + locked.waitTime(), null);
        }
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
            throw invalid("leaseTime must be positive: " + locked.leaseTime(), null);
        }
        if (lockAtLeastFor != null && (lockAtLeastFor.isNegative() || lockAtLeastFor.isZero())) {
            throw invalid("lockAtLeastFor must be positive: " + locked.lockAtLeastFor(), null);
        }
        // A fixed lease that ran out before the release would free the lock early, the very thing
        // lockAtLeastFor is there to prevent; the watchdog's lease is renewed until the release.
        if (lockAtLeastFor != null && leaseTime != null && lockAtLeastFor.compareTo(leaseTime) > 0) {
            throw invalid("lockAtLeastFor (" + locked.lockAtLeastFor() + ") is longer than leaseTime (" + locked.leaseTime()
                    + "): the lease would run out before it; take a longer leaseTime, or none for the watchdog's", null);
        }
        Class<?> returns = method.getReturnType();
        this.async = returns == CompletableFuture.class || returns == CompletionStage.class;
        this.returnsMono = returns.getName().equals("reactor.core.publisher.Mono");
        this.reactive = returnsMono || returns.getName().equals("reactor.core.publisher.Flux");
        if (locked.onTimeout() == Locked.OnTimeout.SKIP && returns.isPrimitive() && returns != void.class) {
            throw invalid("onTimeout = SKIP needs a method that can return nothing, not " + returns, null);
        }
    }

    /**
     * @param method the method, as the target class declares it
     * @param locked its annotation, or its class's
     * @return the parsed method
     * @throws IllegalStateException naming the method if the annotation is malformed
     */
    static LockedMethod of(Method method, Locked locked) {
        return of(method, locked, UnaryOperator.identity());
    }

    /**
     * @param method the method, as the target class declares it
     * @param locked its annotation, or its class's
     * @param placeholders resolves {@code ${...}} in the durations, as the application's
     *     environment does for {@code @Scheduled}
     * @return the parsed method
     * @throws IllegalStateException naming the method if the annotation is malformed
     */
    static LockedMethod of(Method method, Locked locked, UnaryOperator<String> placeholders) {
        return new LockedMethod(method, locked, placeholders);
    }

    /** @return the duration, or null for an empty text (after its placeholders are resolved) */
    private static @Nullable Duration duration(String text, UnaryOperator<String> placeholders) {
        String resolved = text.isEmpty() ? text : placeholders.apply(text);
        return resolved == null || resolved.isEmpty() ? null : DurationStyle.detectAndParse(resolved);
    }

    /**
     * @param target the bean, the expression's root object
     * @param arguments the call's arguments
     * @return the lock's name for this call
     * @throws IllegalStateException naming the method and the name if a part of the name cannot
     *     be evaluated, or is null or empty at this call
     */
    String lockName(@Nullable Object target, Object[] arguments) {
        return name.evaluate(new MethodBasedEvaluationContext(target, method, arguments, PARAMETER_NAMES));
    }

    DistributedLock lock(LockClient client, String lockName) {
        return switch (locked.kind()) {
            case PLAIN -> client.getLock(lockName);
            case FAIR -> client.getFairLock(lockName);
            case RED -> client.getRedLock(lockName);
        };
    }

    Duration waitTime() {
        return waitTime;
    }

    /** {@return the fixed lease, or null for the watchdog's} */
    @Nullable Duration leaseTime() {
        return leaseTime;
    }

    /** {@return how long after the method began the lock is held at least, or null to release it when the method ends} */
    @Nullable Duration lockAtLeastFor() {
        return lockAtLeastFor;
    }

    boolean async() {
        return async;
    }

    /** {@return whether it returns Reactor's {@code Mono} or {@code Flux}} */
    boolean reactive() {
        return reactive;
    }

    /** {@return whether it returns Reactor's {@code Mono}} */
    boolean returnsMono() {
        return returnsMono;
    }

    boolean skipsOnTimeout() {
        return locked.onTimeout() == Locked.OnTimeout.SKIP;
    }

    /** {@return what a skipped call returns} */
    @Nullable Object skipped() {
        Class<?> returns = method.getReturnType();
        if (async) {
            return CompletableFuture.completedFuture(null);
        }
        return returns == Optional.class ? Optional.empty() : null;
    }

    private IllegalStateException invalid(String message, @Nullable Throwable cause) {
        return invalid(method, message, cause);
    }

    /**
     * @param method the annotated method
     * @param message what is wrong
     * @param cause why, or null
     * @return the failure of a malformed annotation, naming the method
     */
    static IllegalStateException invalid(Method method, String message, @Nullable Throwable cause) {
        return new IllegalStateException("@Locked on " + method.toGenericString() + ": " + message, cause);
    }
}
