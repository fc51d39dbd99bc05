package com.example.orders;

import io.latchkey.spring.Locked;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Every node schedules the report; one runs it per period. The job takes a moment, so without
 * lockAtLeastFor a node whose clock is a little late would find the lock free and run it again.
 */
@Component
public class DailyReport {

    private final AtomicInteger runs = new AtomicInteger();

    @Scheduled(cron = "${orders.report.cron}")
    @Locked(name = "orders:daily-report", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP,
            lockAtLeastFor = "${orders.report.lock-at-least-for:4m}")
    public void run() {
        runs.incrementAndGet();
    }

    /** @return how often this node ran the report */
    public int runs() {
        return runs.get();
    }
}
