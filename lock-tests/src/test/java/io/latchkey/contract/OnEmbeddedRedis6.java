package io.latchkey.contract;

import io.latchkey.testing.RedisBinary;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class on the Redis 6.2 binary that embedded-redis ships instead of the default
 * {@code redis-server}: every server the class starts (and restarts) is 6.2. Its callbacks run
 * before the class's own {@code @BeforeAll} methods, inherited ones included, so a contract
 * subclass needs nothing but {@code @ExtendWith(OnEmbeddedRedis6.class)}. Skips the class where
 * the default server is older than 7 already (the class itself covers 6 then) or no embedded
 * binary exists for the platform. A test JVM runs its classes one at a time (the pom's forks are
 * separate JVMs), so the system property it sets is seen by this class alone.
 */
public final class OnEmbeddedRedis6 implements ExecutionCondition, BeforeAllCallback, AfterAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(OnEmbeddedRedis6.class);
    private static final String PREVIOUS = "previous";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isPresent()) {
            // Decided for the class; by now the default binary is the embedded one.
            return ConditionEvaluationResult.enabled("the class runs");
        }
        if (!RedisBinary.atLeast(7)) {
            return ConditionEvaluationResult.disabled("the default redis-server is " + RedisBinary.version()
                    + " already, so the class runs on Redis 6 without this extension");
        }
        if (RedisBinary.embedded().isEmpty()) {
            return ConditionEvaluationResult.disabled("embedded-redis ships no binary for "
                    + System.getProperty("os.name") + "/" + System.getProperty("os.arch"));
        }
        return ConditionEvaluationResult.enabled("the embedded Redis 6.2 binary exists");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        String previous = System.getProperty(RedisBinary.EMBEDDED_PROPERTY);
        context.getStore(NAMESPACE).put(PREVIOUS, previous == null ? "" : previous);
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "true");
        if (RedisBinary.versionOf(RedisBinary.path()).startsWith("7")) {
            throw new IllegalStateException("the embedded binary is not older than Redis 7");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        String previous = context.getStore(NAMESPACE).get(PREVIOUS, String.class);
        if (previous == null || previous.isEmpty()) {
            System.clearProperty(RedisBinary.EMBEDDED_PROPERTY);
        } else {
            System.setProperty(RedisBinary.EMBEDDED_PROPERTY, previous);
        }
    }
}
