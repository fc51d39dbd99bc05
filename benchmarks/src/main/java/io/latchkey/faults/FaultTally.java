package io.latchkey.faults;

import io.latchkey.measure.LatencyHistogram;
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
    final AtomicLong lockExceptions = new AtomicLong();
    final AtomicLong leasesLost = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();
    final AtomicLong checkerFailures = new AtomicLong();
    final AtomicLong hungWorkers = new AtomicLong();
    final LatencyHistogram waits = new LatencyHistogram();

    FaultTally(Fault fault) {
        this.fault = fault;
    }

    void on(WorkerEvent event, String detail) {
        switch (event) {
            case ACQUIRED:
                waits.record(TimeUnit.MICROSECONDS.toNanos(Long.parseLong(detail)));
                break;
            case EXCEPTION:
                lockExceptions.incrementAndGet();
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
}
