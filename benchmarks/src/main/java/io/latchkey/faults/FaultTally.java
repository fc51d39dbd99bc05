package io.latchkey.faults;

import io.latchkey.measure.LatencyHistogram;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the workers reported while one fault was under way, summed over every time it ran. The
 * checker's counters (acquisitions, overlaps, fencing verdicts, stalls) are kept on the checker
 * Redis instead, where a killed worker cannot lose them. Thread-safe.
 */
final class FaultTally {

    final Fault fault;
    final AtomicLong runs = new AtomicLong();
    /** Per lock call: exception type → how many. */
    private final Map<LockCall, ConcurrentMap<String, AtomicLong>> exceptions = new EnumMap<>(LockCall.class);
    /** Per lock call and exception type: the first message seen, for a reader who must find out why. */
    private final Map<LockCall, ConcurrentMap<String, String>> examples = new EnumMap<>(LockCall.class);
    final AtomicLong leasesLost = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();
    final AtomicLong checkerFailures = new AtomicLong();
    final AtomicLong hungWorkers = new AtomicLong();
    final LatencyHistogram waits = new LatencyHistogram();

    FaultTally(Fault fault) {
        this.fault = fault;
        for (LockCall call : LockCall.values()) {
            exceptions.put(call, new ConcurrentHashMap<>());
            examples.put(call, new ConcurrentHashMap<>());
        }
    }

    /** @return how many calls of this kind threw a {@code LockException} */
    long exceptions(LockCall call) {
        long sum = 0;
        for (AtomicLong count : exceptions.get(call).values()) {
            sum += count.get();
        }
        return sum;
    }

    /** @return every lock call's exceptions */
    long exceptions() {
        long sum = 0;
        for (LockCall call : LockCall.values()) {
            sum += exceptions(call);
        }
        return sum;
    }

    /** @return exception type → count, for this call, sorted by type */
    Map<String, Long> exceptionsByType(LockCall call) {
        Map<String, Long> byType = new TreeMap<>();
        exceptions.get(call).forEach((type, count) -> byType.put(type, count.get()));
        return byType;
    }

    /** @return the first message seen of this call and exception type, or null */
    String example(LockCall call, String type) {
        return examples.get(call).get(type);
    }

    void on(WorkerEvent event, String detail) {
        switch (event) {
            case ACQUIRED:
                waits.record(TimeUnit.MICROSECONDS.toNanos(Long.parseLong(detail)));
                break;
            case EXCEPTION:
                onException(detail);
                break;
            case LEASE_LOST:
                leasesLost.incrementAndGet();
                break;
            case GAVE_UP:
                gaveUp.incrementAndGet();
                break;
            case CHECKER_FAILED:
                checkerFailures.incrementAndGet();
                break;
            default:
                break;
        }
    }

    /** {@code detail}: the call's code, the exception's type, its message. */
    private void onException(String detail) {
        String[] parts = detail.split(" ", 3);
        LockCall call = LockCall.of(parts[0]);
        String type = parts.length > 1 ? parts[1] : "?";
        exceptions.get(call).computeIfAbsent(type, t -> new AtomicLong()).incrementAndGet();
        examples.get(call).putIfAbsent(type, parts.length > 2 ? parts[2] : "");
    }
}
