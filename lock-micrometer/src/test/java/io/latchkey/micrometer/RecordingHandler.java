package io.latchkey.micrometer;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/** Records what observations start and stop, as a tracer's handler would see them. Thread-safe. */
final class RecordingHandler implements ObservationHandler<Observation.Context> {

    final List<Observation.Context> started = new CopyOnWriteArrayList<>();
    final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    @Override
    public void onStart(Observation.Context context) {
        started.add(context);
    }

    @Override
    public void onStop(Observation.Context context) {
        stopped.add(context);
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return true;
    }

    List<Observation.Context> stopped(String name) {
        return stopped.stream().filter(context -> name.equals(context.getName())).toList();
    }

    List<Observation.Context> started(String name) {
        return started.stream().filter(context -> name.equals(context.getName())).toList();
    }

    static Map<String, String> low(Observation.Context context) {
        return context.getLowCardinalityKeyValues().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }

    static Map<String, String> high(Observation.Context context) {
        return context.getHighCardinalityKeyValues().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }
}
