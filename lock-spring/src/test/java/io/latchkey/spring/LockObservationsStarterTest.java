package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockEventListener;
import io.latchkey.micrometer.DefaultLockAcquireConvention;
import io.latchkey.micrometer.DefaultLockHoldConvention;
import io.latchkey.micrometer.LockAcquireContext;
import io.latchkey.micrometer.LockObservationContext;
import io.latchkey.micrometer.LockObservations;
import io.latchkey.micrometer.MicrometerLockEvents;
import io.latchkey.testing.RedisServer;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationPredicate;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code @Locked} call in an application with Boot's {@code ObservationRegistry} (as Actuator
 * makes it: the application's handler, predicate and convention beans applied, and Boot's handler
 * that makes timers of observations), against a real redis-server.
 */
class LockObservationsStarterTest {

    private static final String ACQUISITION = DefaultLockAcquireConvention.NAME;
    private static final String HOLD = DefaultLockHoldConvention.NAME;
    private static final AtomicLong ORDERS = new AtomicLong();

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aLockedCallMakesAnAcquisitionAndAHoldObservationChildrenOfTheCallersWithKindAndOutcome() {
        try (ConfigurableApplicationContext app = TestApplication.run(Recording.class, "latchkey.address=" + redis.uri())) {
            assertThat(app.getBeansOfType(LockEventListener.class).values()).extracting(Object::getClass)
                    .containsExactlyInAnyOrder(MicrometerLockEvents.class, LockObservations.class);
            Recorder recorder = app.getBean(Recorder.class);
            ObservationRegistry registry = app.getBean(ObservationRegistry.class);
            long order = ORDERS.incrementAndGet();

            Observation request = Observation.start("http.server.requests", registry);
            request.scoped(() -> app.getBean(OrderService.class).ship(new OrderService.Order(order)));
            request.stop();

            await().untilAsserted(() -> assertThat(recorder.stopped(HOLD)).hasSize(1));
            Observation.Context acquisition = recorder.stopped(ACQUISITION).get(0);
            assertThat(low(acquisition)).isEqualTo(Map.of("kind", "plain", "outcome", "acquired"));
            assertThat(acquisition.getHighCardinalityKeyValues()).isEmpty();
            assertThat(acquisition.getParentObservation()).isSameAs(request);
            Observation.Context hold = recorder.stopped(HOLD).get(0);
            assertThat(low(hold)).isEqualTo(Map.of("kind", "plain", "outcome", "released"));
            assertThat(hold.getHighCardinalityKeyValues()).isEmpty();
            assertThat(hold.getParentObservation()).isSameAs(request);

            // Boot's meter handler made timers of both, beside the meters of MicrometerLockEvents.
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            await().untilAsserted(() -> assertThat(meters.find(HOLD).timer()).isNotNull());
            assertThat(meters.get(ACQUISITION).tags("kind", "plain", "outcome", "acquired", "error", "none").timer().count())
                    .isEqualTo(1);
            assertThat(meters.get("latchkey.lock.acquire").tags("kind", "plain", "outcome", "acquired").timer().count())
                    .isEqualTo(1);
            assertEveryMeterNameHasOneSetOfTagKeys(meters);
        }
    }

    @Test
    void theLockNameGoesOnTracesOnlyWhenOptedInAndNeverOnMeters() {
        long order = ORDERS.incrementAndGet();
        try (ConfigurableApplicationContext app = TestApplication.run(Recording.class, "latchkey.address=" + redis.uri(),
                "latchkey.observations.lock-name=true", "latchkey.metrics.lock-name-tag=true")) {
            app.getBean(OrderService.class).ship(new OrderService.Order(order));
            Recorder recorder = app.getBean(Recorder.class);
            await().untilAsserted(() -> assertThat(recorder.stopped(HOLD)).hasSize(1));
            assertThat(List.of(recorder.stopped(ACQUISITION).get(0), recorder.stopped(HOLD).get(0))).allSatisfy(context ->
                    assertThat(context.getHighCardinalityKeyValues()).containsExactly(KeyValue.of("name", "orders:" + order)));
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            assertThat(meters.get(ACQUISITION).timer().getId().getTag("name")).isNull();
            // The meters' own opt-in tags them; the observations' timers keep to their own name.
            assertThat(meters.get("latchkey.lock.acquire").timer().getId().getTag("name")).isEqualTo("orders:" + order);
            assertEveryMeterNameHasOneSetOfTagKeys(meters);
        }
        try (ConfigurableApplicationContext app = TestApplication.run(Recording.class, "latchkey.address=" + redis.uri())) {
            app.getBean(OrderService.class).ship(new OrderService.Order(order));
            Recorder recorder = app.getBean(Recorder.class);
            await().untilAsserted(() -> assertThat(recorder.stopped(HOLD)).hasSize(1));
            assertThat(recorder.stopped).allSatisfy(context -> assertThat(context.getHighCardinalityKeyValues()).isEmpty());
        }
    }

    @Test
    void anObservationPredicateBeanSuppressesThemAndTheMetersStay() {
        try (ConfigurableApplicationContext app = TestApplication.run(Suppressing.class, "latchkey.address=" + redis.uri())) {
            app.getBean(OrderService.class).ship(new OrderService.Order(ORDERS.incrementAndGet()));
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            await().untilAsserted(() -> assertThat(meters.get("latchkey.lock.held").longTaskTimer().activeTasks()).isZero());
            assertThat(meters.get("latchkey.lock.acquire").timer().count()).isEqualTo(1);
            assertThat(app.getBean(Recorder.class).started).isEmpty();
            assertThat(meters.find(ACQUISITION).meters()).isEmpty();
        }
    }

    @Test
    void aGlobalObservationConventionBeanRenamesTheAcquisitionAndAddsATag() {
        try (ConfigurableApplicationContext app = TestApplication.run(Renaming.class, "latchkey.address=" + redis.uri())) {
            app.getBean(OrderService.class).ship(new OrderService.Order(ORDERS.incrementAndGet()));
            Recorder recorder = app.getBean(Recorder.class);
            await().untilAsserted(() -> assertThat(recorder.stopped(HOLD)).hasSize(1));
            assertThat(recorder.stopped(ACQUISITION)).isEmpty();
            assertThat(recorder.stopped("orders.lock.wait")).singleElement().satisfies(context ->
                    assertThat(low(context)).isEqualTo(Map.of("kind", "plain", "outcome", "acquired", "team", "orders")));
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            assertThat(meters.get("orders.lock.wait").tag("team", "orders").timer().count()).isEqualTo(1);
        }
    }

    @Test
    void observationsTurnedOffLeaveTheMeters() {
        try (ConfigurableApplicationContext app = TestApplication.run(Recording.class, "latchkey.address=" + redis.uri(),
                "latchkey.observations.enabled=false")) {
            assertThat(app.getBeansOfType(LockEventListener.class).values()).extracting(Object::getClass)
                    .containsExactly(MicrometerLockEvents.class);
            app.getBean(OrderService.class).ship(new OrderService.Order(ORDERS.incrementAndGet()));
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            await().untilAsserted(() -> assertThat(meters.find("latchkey.lock.acquire").timer()).isNotNull());
            assertThat(app.getBean(Recorder.class).started).isEmpty();
        }
    }

    @Test
    void theObservationsTimersCanBeDroppedWithBootsPropertyAndTheTracesStay() {
        try (ConfigurableApplicationContext app = TestApplication.run(Recording.class, "latchkey.address=" + redis.uri(),
                "management.metrics.enable.latchkey.lock.acquisition=false", "management.metrics.enable.latchkey.lock.hold=false")) {
            app.getBean(OrderService.class).ship(new OrderService.Order(ORDERS.incrementAndGet()));
            Recorder recorder = app.getBean(Recorder.class);
            await().untilAsserted(() -> assertThat(recorder.stopped(HOLD)).hasSize(1));
            assertThat(recorder.stopped(ACQUISITION)).hasSize(1);
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            assertThat(meters.getMeters()).extracting(meter -> meter.getId().getName())
                    .noneMatch(name -> name.startsWith(ACQUISITION) || name.startsWith(HOLD))
                    .contains("latchkey.lock.acquire", "latchkey.lock.held");
        }
    }

    /** Prometheus refuses a second meter of one name with other tag keys: none here has two. */
    private static void assertEveryMeterNameHasOneSetOfTagKeys(MeterRegistry meters) {
        Map<String, Set<Set<String>>> keys = meters.getMeters().stream().map(Meter::getId).collect(Collectors.groupingBy(
                Meter.Id::getName, Collectors.mapping(id -> id.getTags().stream().map(Tag::getKey).collect(Collectors.toSet()),
                        Collectors.toSet())));
        assertThat(keys).allSatisfy((name, tagKeys) -> assertThat(tagKeys).as(name).hasSize(1));
    }

    private static Map<String, String> low(Observation.Context context) {
        return context.getLowCardinalityKeyValues().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }

    /** Records observations as a tracer's handler sees them. */
    static final class Recorder implements ObservationHandler<Observation.Context> {

        final List<Observation.Context> started = new CopyOnWriteArrayList<>();
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            if (context instanceof LockObservationContext) {
                started.add(context);
            }
        }

        @Override
        public void onStop(Observation.Context context) {
            if (context instanceof LockObservationContext) {
                stopped.add(context);
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        List<Observation.Context> stopped(String name) {
            return stopped.stream().filter(context -> name.equals(context.getName())).toList();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Recording {

        @Bean
        Recorder recorder() {
            return new Recorder();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Suppressing extends Recording {

        @Bean
        ObservationPredicate noLockObservations() {
            return (name, context) -> !(context instanceof LockObservationContext);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Renaming extends Recording {

        @Bean
        GlobalObservationConvention<LockAcquireContext> ordersLockWait() {
            return new OrdersLockWait();
        }
    }

    /** As an application writes one: the default's key values, its own name, a tag more. */
    static final class OrdersLockWait extends DefaultLockAcquireConvention implements GlobalObservationConvention<LockAcquireContext> {

        @Override
        public String getName() {
            return "orders.lock.wait";
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
            return super.getLowCardinalityKeyValues(context).and("team", "orders");
        }
    }
}
