package io.latchkey.faults;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report's exception columns and verdict, from worker events alone (no Redis). */
class FaultReportTest {

    @Test
    void aWaitThatThrowsBeforeItsEndFailsItsRowWhileBoundedCallsAndWaitsThatRanOutDoNot() {
        Map<Fault, FaultTally> tallies = tallies();
        FaultTally restart = tallies.get(Fault.RESTART_AOF);
        restart.on(WorkerEvent.EXCEPTION, "l LockConnectionException Currently not connected");
        restart.on(WorkerEvent.EXCEPTION, "z LockRefusedException LOADING Redis is loading");
        restart.on(WorkerEvent.EXCEPTION, "r LockConnectionException Connection reset");
        restart.on(WorkerEvent.EXCEPTION, "x LockConnectionException Currently not connected");
        FaultTally sleep = tallies.get(Fault.DEBUG_SLEEP);
        sleep.on(WorkerEvent.EXCEPTION, "w LockTimeoutException Command timed out after 500 ms");

        FaultReport report = new FaultReport(tallies, Map.of(), List.of(Fault.RESTART_AOF, Fault.DEBUG_SLEEP),
                List.of(), 1_000_000_000L, "lease 2000 ms", new KindReport(Map.of(), List.of("plain:p-1"), -1));
        String text = report.render();

        assertFalse(report.passed(), text);
        assertTrue(text.contains("FAIL: DEBUG SLEEP > command timeout: 1 tryAcquire(wait) calls threw"), text);
        assertFalse(text.contains("FAIL: Redis kill -9, restart with AOF"), text);
        assertTrue(text.contains("Redis kill -9, restart with AOF: tryAcquire(wait) at its end: "
                + "LockConnectionException 1 (\"Currently not connected\"); acquire(): LockConnectionException 1; "
                + "tryAcquire(0): LockRefusedException 1; close(): LockConnectionException 1"), text);
        assertTrue(text.contains("DEBUG SLEEP > command timeout: tryAcquire(wait): LockTimeoutException 1 "
                + "(\"Command timed out after 500 ms\")"), text);
    }

    private static Map<Fault, FaultTally> tallies() {
        Map<Fault, FaultTally> tallies = new EnumMap<>(Fault.class);
        for (Fault fault : Fault.values()) {
            tallies.put(fault, new FaultTally(fault));
        }
        return tallies;
    }
}
