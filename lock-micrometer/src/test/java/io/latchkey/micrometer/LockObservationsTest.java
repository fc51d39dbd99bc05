package io.latchkey.micrometer;

import static io.latchkey.micrometer.RecordingHandler.high;
import static io.latchkey.micrometer.RecordingHandler.low;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockEventListener.AcquireEnded;
import io.latchkey.LockEventListener.AcquireOutcome;
import io.latchkey.LockEventListener.AcquireStarted;
import io.latchkey.LockEventListener.LeaseLost;
import io.latchkey.LockEventListener.Released;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The observations each event makes, fed by hand: no Redis. */
class LockObservationsTest {

    private static final String ACQUISITION = DefaultLockAcquireConvention.NAME;
    private static final String HOLD = DefaultLockHoldConvention.NAME;

    private final ObservationRegistry registry = ObservationRegistry.create();
    private final RecordingHandler handler = new RecordingHandler();

    LockObservationsTest() {
        registry.observationConfig().observationHandler(handler);
    }

    @Test
    void anAcquisitionAndItsHoldAreObservedWithKindAndOutcomeAndReentriesBelongToTheHold() {
        LockObservations observations = LockObservations.of(registry);
        observations.acquireStarted(new AcquireStarted("orders:1", "plain", 7));
        assertThat(handler.started(ACQUISITION)).hasSize(1);
        assertThat(low(handler.started.get(0))).containsExactly(Map.entry("kind", "plain")); // no outcome yet
        observations.acquireEnded(acquired("orders:1", "plain", 7, 9));
        observations.acquireStarted(new AcquireStarted("orders:1", "plain", 7));
        observations.acquireEnded(acquired("orders:1", "plain", 7, 9)); // a re-entry: the same token

        assertThat(handler.stopped(ACQUISITION)).hasSize(2).allSatisfy(context -> {
            assertThat(low(context)).containsExactlyInAnyOrderEntriesOf(Map.of("kind", "plain", "outcome", "acquired"));
            assertThat(high(context)).isEmpty();
            assertThat(context.getContextualName()).isEqualTo("acquire plain lock");
        });
        assertThat(handler.started(HOLD)).hasSize(1);
        assertThat(handler.stopped(HOLD)).isEmpty();

        observations.released(new Released("orders:1", "plain", 7, 9, Duration.ofMillis(3)));
        assertThat(handler.stopped(HOLD)).singleElement().satisfies(context -> {
            assertThat(low(context)).containsExactlyInAnyOrderEntriesOf(Map.of("kind", "plain", "outcome", "released"));
            assertThat(high(context)).isEmpty();
            assertThat(context.getContextualName()).isEqualTo("hold plain lock");
            assertThat(((LockHoldContext) context).getFencingToken()).isEqualTo(9);
        });
        assertThat(observations.open()).isZero();
    }

    @Test
    void aLostLeaseEndsTheHoldAsLost() {
        LockObservations observations = LockObservations.of(registry);
        observations.acquireStarted(new AcquireStarted("a", "fair", 1));
        observations.acquireEnded(acquired("a", "fair", 1, 3));
        observations.leaseLost(new LeaseLost("a", 1, 3, "the client was closed while it was held"));
        assertThat(handler.stopped(HOLD)).singleElement().satisfies(context ->
                assertThat(low(context)).containsEntry("outcome", "lost").containsEntry("kind", "fair"));
        observations.released(new Released("a", "fair", 1, 3, Duration.ZERO)); // nothing left to end
        assertThat(handler.stopped(HOLD)).hasSize(1);
        assertThat(observations.open()).isZero();
    }

    @Test
    void anAcquisitionThatDidNotAcquireStartsNoHold() {
        LockObservations observations = LockObservations.of(registry);
        for (AcquireOutcome outcome : List.of(AcquireOutcome.TIMED_OUT, AcquireOutcome.INTERRUPTED, AcquireOutcome.FAILED)) {
            observations.acquireStarted(new AcquireStarted("a", "plain", 1));
            observations.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ZERO, outcome, 0));
        }
        assertThat(handler.stopped(ACQUISITION)).extracting(context -> low(context).get("outcome"))
                .containsExactly("timed_out", "interrupted", "failed");
        assertThat(handler.started(HOLD)).isEmpty();
        assertThat(observations.open()).isZero();
    }

    @Test
    void theLockNameIsAHighCardinalityValueOnlyWhenOptedIn() {
        LockObservations observations = LockObservations.builder(registry).lockNames(true).build();
        observations.acquireStarted(new AcquireStarted("orders:42", "plain", 1));
        observations.acquireEnded(acquired("orders:42", "plain", 1, 5));
        observations.released(new Released("orders:42", "plain", 1, 5, Duration.ZERO));
        assertThat(handler.stopped).hasSize(2).allSatisfy(context -> {
            assertThat(high(context)).containsExactly(Map.entry("name", "orders:42"));
            assertThat(low(context)).doesNotContainKey("name");
        });
    }

    @Test
    void theAcquisitionsParentIsTheObservationCurrentWhereItStartsAndTheHoldGetsTheSameOneOnAnotherThread() throws Exception {
        LockObservations observations = LockObservations.of(registry);
        Observation request = Observation.start("http.server.requests", registry);
        request.scoped(() -> observations.acquireStarted(new AcquireStarted("a", "plain", 1)));
        // The grant is told on another thread (an I/O thread), where something else is current.
        CompletableFuture.runAsync(() -> {
            Observation unrelated = Observation.start("unrelated", registry);
            unrelated.scoped(() -> observations.acquireEnded(acquired("a", "plain", 1, 4)));
            unrelated.stop();
        }).get();
        observations.released(new Released("a", "plain", 1, 4, Duration.ZERO));
        request.stop();

        assertThat(handler.stopped(ACQUISITION).get(0).getParentObservation()).isSameAs(request);
        assertThat(handler.stopped(HOLD).get(0).getParentObservation()).isSameAs(request);
    }

    @Test
    void withoutACurrentObservationWhereItStartsTheHoldHasNoParentEvenIfOneIsCurrentWhereItIsGranted() {
        LockObservations observations = LockObservations.of(registry);
        observations.acquireStarted(new AcquireStarted("a", "plain", 1));
        Observation unrelated = Observation.start("unrelated", registry);
        unrelated.scoped(() -> observations.acquireEnded(acquired("a", "plain", 1, 4)));
        unrelated.stop();
        assertThat(handler.stopped(ACQUISITION).get(0).getParentObservation()).isNull();
        assertThat(handler.started(HOLD).get(0).getParentObservation()).isNull();
    }

    @Test
    void aPredicateSuppressesAnObservationAndTheOtherKeepsItsParent() {
        registry.observationConfig().observationPredicate((name, context) -> !ACQUISITION.equals(name));
        LockObservations observations = LockObservations.of(registry);
        Observation request = Observation.start("request", registry);
        request.scoped(() -> observations.acquireStarted(new AcquireStarted("a", "plain", 1)));
        observations.acquireEnded(acquired("a", "plain", 1, 4));
        observations.released(new Released("a", "plain", 1, 4, Duration.ZERO));
        assertThat(handler.started(ACQUISITION)).isEmpty();
        assertThat(handler.stopped(HOLD)).singleElement().satisfies(context ->
                assertThat(context.getParentObservation()).isSameAs(request));
        assertThat(observations.open()).isZero();
    }

    @Test
    void aPredicateCanPickLocksByName() {
        registry.observationConfig().observationPredicate((name, context) ->
                !(context instanceof LockObservationContext lock && lock.getLockName().startsWith("health:")));
        LockObservations observations = LockObservations.of(registry);
        observations.acquireStarted(new AcquireStarted("health:ping", "plain", 1));
        observations.acquireEnded(acquired("health:ping", "plain", 1, 4));
        observations.released(new Released("health:ping", "plain", 1, 4, Duration.ZERO));
        assertThat(handler.started).isEmpty();
        assertThat(observations.open()).isZero();
    }

    @Test
    void aGlobalConventionAppliesAndOneGivenToTheBuilderWinsOverIt() {
        registry.observationConfig().observationConvention(new RenamedAcquisitions("global"));
        LockObservations global = LockObservations.of(registry);
        global.acquireStarted(new AcquireStarted("a", "plain", 1));
        global.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));
        assertThat(handler.stopped("global.acquire")).singleElement().satisfies(context ->
                assertThat(low(context)).containsEntry("team", "global").containsEntry("outcome", "timed_out"));

        LockObservations custom = LockObservations.builder(registry).acquireConvention(new RenamedAcquisitions("custom")).build();
        custom.acquireStarted(new AcquireStarted("a", "plain", 1));
        custom.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));
        assertThat(handler.stopped("custom.acquire")).hasSize(1);
        assertThat(handler.stopped(ACQUISITION)).isEmpty();
    }

    @Test
    void twoAcquisitionsOfOneOwnerAtOnceAreMatchedFirstComeFirstServed() {
        LockObservations observations = LockObservations.of(registry);
        observations.acquireStarted(new AcquireStarted("a", "plain", 1));
        observations.acquireStarted(new AcquireStarted("a", "plain", 1));
        observations.acquireStarted(new AcquireStarted("a", "read", 1)); // another kind: its own
        assertThat(observations.open()).isEqualTo(3);
        observations.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ZERO, AcquireOutcome.TIMED_OUT, 0));
        observations.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ZERO, AcquireOutcome.FAILED, 0));
        observations.acquireEnded(new AcquireEnded("a", "read", 1, Duration.ZERO, AcquireOutcome.FAILED, 0));
        assertThat(handler.stopped(ACQUISITION)).extracting(context -> context)
                .containsExactlyElementsOf(handler.started(ACQUISITION));
        assertThat(observations.open()).isZero();
    }

    @Test
    void pastTheBoundNewAcquisitionsAndHoldsAreNotObservedAndTheBoundFreesAgain() {
        LockObservations observations = LockObservations.builder(registry).maxOpen(1).build();
        observations.acquireStarted(new AcquireStarted("a", "plain", 1)); // its end never comes
        observations.acquireStarted(new AcquireStarted("b", "plain", 2));
        assertThat(handler.started(ACQUISITION)).hasSize(1);
        observations.acquireEnded(acquired("b", "plain", 2, 1)); // no acquisition to end; a hold, the first
        observations.acquireEnded(acquired("c", "plain", 3, 1)); // past the bound of holds
        assertThat(handler.started(HOLD)).hasSize(1);
        observations.acquireEnded(new AcquireEnded("a", "plain", 1, Duration.ZERO, AcquireOutcome.FAILED, 0));
        observations.acquireStarted(new AcquireStarted("d", "plain", 4));
        assertThat(handler.started(ACQUISITION)).hasSize(2);
        assertThatThrownBy(() -> LockObservations.builder(registry).maxOpen(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxOpen").hasMessageContaining("0");
    }

    @Test
    void aRegistryWithoutHandlersKeepsNothing() {
        LockObservations observations = LockObservations.of(ObservationRegistry.create());
        observations.acquireStarted(new AcquireStarted("a", "plain", 1));
        observations.acquireEnded(acquired("a", "plain", 1, 1));
        assertThat(observations.open()).isZero();
        LockObservations noop = LockObservations.of(ObservationRegistry.NOOP);
        noop.acquireStarted(new AcquireStarted("a", "plain", 1));
        noop.acquireEnded(acquired("a", "plain", 1, 1));
        assertThat(noop.open()).isZero();
    }

    @Test
    void aHandlerThatThrowsAtTheStartLeavesNothingOpen() {
        registry.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<Observation.Context>() {
            @Override
            public void onStart(Observation.Context context) {
                throw new IllegalStateException("a broken handler");
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        LockObservations observations = LockObservations.of(registry);
        assertThatThrownBy(() -> observations.acquireStarted(new AcquireStarted("a", "plain", 1)))
                .hasMessage("a broken handler");
        assertThatThrownBy(() -> observations.acquireEnded(acquired("a", "plain", 1, 1))).hasMessage("a broken handler");
        assertThat(observations.open()).isZero();
    }

    @Test
    void manyOwnersAtOnceLeaveNothingOpenAndEveryObservationStopped() throws Exception {
        LockObservations observations = LockObservations.of(registry);
        int threads = 8;
        int rounds = 500;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            long owner = t;
            runs.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 1; i <= rounds; i++) {
                    String name = "lock-" + (i % 3); // the same names from every thread, other owners
                    observations.acquireStarted(new AcquireStarted(name, "plain", owner));
                    observations.acquireEnded(acquired(name, "plain", owner, owner * rounds + i));
                    observations.released(new Released(name, "plain", owner, owner * rounds + i, Duration.ZERO));
                }
            }, pool));
        }
        try {
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get();
        } finally {
            pool.shutdown();
        }
        assertThat(observations.open()).isZero();
        assertThat(handler.stopped(ACQUISITION)).hasSize(threads * rounds);
        assertThat(handler.stopped(HOLD)).hasSize(threads * rounds);
    }

    private static AcquireEnded acquired(String name, String kind, long owner, long token) {
        return new AcquireEnded(name, kind, owner, Duration.ofMillis(1), AcquireOutcome.ACQUIRED, token);
    }

    /** A global convention as an application registers one: the default's values, another name, a tag more. */
    private static final class RenamedAcquisitions extends DefaultLockAcquireConvention
            implements GlobalObservationConvention<LockAcquireContext> {

        private final String prefix;

        RenamedAcquisitions(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public String getName() {
            return prefix + ".acquire";
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
            return super.getLowCardinalityKeyValues(context).and("team", prefix);
        }
    }
}
