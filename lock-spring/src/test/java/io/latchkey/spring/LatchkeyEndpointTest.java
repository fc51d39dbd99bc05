package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockHold;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.WithRedisServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.ExposableEndpoint;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.Operation;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.jmx.JmxEndpointsSupplier;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Actuator endpoint {@code latchkey} in a running application against a real Redis, reached
 * as Actuator reaches it: through the operations that Actuator discovers for the exposed endpoint
 * (here over JMX, which needs no web server; HTTP exposes the same operations). Redis comes from
 * {@link WithRedisServer}, as in an application's own tests: the application finds it through
 * the system property {@code latchkey.address}.
 */
@WithRedisServer
class LatchkeyEndpointTest {

    private static LockClient other;

    @BeforeAll
    static void start(RedisServer redis) {
        other = LockClient.create(redis.uri());
    }

    @AfterAll
    static void stop() {
        if (other != null) {
            other.close();
        }
    }

    private static ConfigurableApplicationContext run(String... more) {
        List<String> properties = new java.util.ArrayList<>(List.of("spring.jmx.enabled=true", "spring.jmx.unique-names=true", "management.endpoints.jmx.exposure.include=latchkey"));
        properties.addAll(List.of(more));
        return TestApplication.run(properties.toArray(String[]::new));
    }

    private static Map<OperationType, Operation> operations(ConfigurableApplicationContext app) {
        ExposableEndpoint<?> endpoint = app.getBean(JmxEndpointsSupplier.class).getEndpoints().stream()
                .filter(candidate -> candidate.getEndpointId().equals(EndpointId.of("latchkey"))).findFirst().orElseThrow();
        Map<OperationType, Operation> byType = new HashMap<>();
        endpoint.getOperations().forEach(operation -> byType.put(operation.getType(), operation));
        return byType;
    }

    private static Object invoke(Operation operation, Map<String, Object> arguments) {
        return operation.invoke(new InvocationContext(SecurityContext.NONE, arguments));
    }

    @Test
    void theReadOperationListsTheLocksThisApplicationHolds() throws Exception {
        try (ConfigurableApplicationContext app = run()) {
            LockClient client = app.getBean(LockClient.class);
            LockHold hold = client.getLock("endpoint:held").acquireAsync(5L).get(5, TimeUnit.SECONDS);
            LockHold elsewhere = other.getLock("endpoint:elsewhere").acquireAsync(6L).get(5, TimeUnit.SECONDS);
            try {
                Object answer = invoke(operations(app).get(OperationType.READ), Map.of());
                assertThat(answer).isInstanceOf(LatchkeyEndpoint.Locks.class);
                List<LatchkeyEndpoint.Lock> locks = ((LatchkeyEndpoint.Locks) answer).locks();
                assertThat(locks).as("only this application's holds").hasSize(1);
                LatchkeyEndpoint.Lock lock = locks.get(0);
                assertThat(lock.name()).isEqualTo("endpoint:held");
                assertThat(lock.kind()).isEqualTo("plain");
                assertThat(lock.ownerId()).isEqualTo(5L);
                assertThat(lock.fencingToken()).isEqualTo(hold.fencingToken());
                assertThat(lock.leaseLeftMillis()).isPositive().isLessThanOrEqualTo(30_000L);
                assertThat(lock.waiters()).isZero();
            } finally {
                hold.close();
                elsewhere.close();
            }
            assertThat(((LatchkeyEndpoint.Locks) invoke(operations(app).get(OperationType.READ), Map.of())).locks()).isEmpty();
        }
    }

    @Test
    void byDefaultTheEndpointHasNoWriteOperation() {
        try (ConfigurableApplicationContext app = run()) {
            assertThat(operations(app)).containsOnlyKeys(OperationType.READ);
            assertThat(app.getBean(LatchkeyEndpoint.class)).isNotInstanceOf(ForceUnlockingLatchkeyEndpoint.class);
        }
    }

    @Test
    void withForceUnlockEnabledTheWriteOperationFreesALockHeldByAnotherApplication() throws Exception {
        try (ConfigurableApplicationContext app = run("latchkey.endpoint.force-unlock.enabled=true")) {
            Operation write = operations(app).get(OperationType.WRITE);
            assertThat(write).isNotNull();
            other.getLock("endpoint:stuck").acquireAsync(9L).get(5, TimeUnit.SECONDS);
            Map<String, Object> plain = new HashMap<>();
            plain.put("name", "endpoint:stuck");
            assertThat(invoke(write, plain)).isEqualTo(new ForceUnlockingLatchkeyEndpoint.ForceUnlocked("endpoint:stuck", "plain", true));
            assertThat(other.getLock("endpoint:stuck").isLocked()).isFalse();
            assertThat(invoke(write, plain)).isEqualTo(new ForceUnlockingLatchkeyEndpoint.ForceUnlocked("endpoint:stuck", "plain", false));

            other.getFairLock("endpoint:fair").acquireAsync(9L).get(5, TimeUnit.SECONDS);
            assertThat(invoke(write, Map.of("name", "endpoint:fair", "kind", "fair")))
                    .isEqualTo(new ForceUnlockingLatchkeyEndpoint.ForceUnlocked("endpoint:fair", "fair", true));
            assertThat(other.getFairLock("endpoint:fair").isLocked()).isFalse();

            assertThatThrownBy(() -> invoke(write, Map.of("name", "endpoint:stuck", "kind", "semaphore")))
                    .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("semaphore");
        }
    }

    @Test
    void anEndpointThatIsNotExposedIsNotMade() {
        try (ConfigurableApplicationContext app = TestApplication.run()) {
            assertThat(app.getBeanNamesForType(LatchkeyEndpoint.class)).isEmpty();
        }
    }
}
