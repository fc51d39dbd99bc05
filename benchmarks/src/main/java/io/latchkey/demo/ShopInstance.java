package io.latchkey.demo;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockTimeoutException;
import io.latchkey.measure.LatencyHistogram;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * One application instance of the demo: its own {@link LockClient}, its own Redis connection for
 * the stock, and the numbers its workers produced. Thread-safe; every worker thread of the
 * instance runs {@link #work(CountDownLatch)} on it.
 */
final class ShopInstance implements AutoCloseable {

    /** Lock calls in a row that may time out before the worker gives up. */
    private static final int MAX_TIMEOUTS_IN_A_ROW = 5;

    private final int number;
    private final LockClient client;
    /** Per segment: its lock and its stock key. */
    private final List<DistributedLock> locks;
    private final List<String> stockKeys;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> stock;
    private final SalesLedger ledger;

    private final LongAdder sold = new LongAdder();
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LatencyHistogram waits = new LatencyHistogram();

    /**
     * @param locks per segment of the stock, its lock; one for the whole stock under one lock
     * @param stockKeys per segment, the Redis key of its stock level
     */
    ShopInstance(int number, LockClient client, List<DistributedLock> locks, StatefulRedisConnection<String, String> connection,
            List<String> stockKeys, SalesLedger ledger) {
        this.number = number;
        this.client = client;
        this.locks = List.copyOf(locks);
        this.connection = connection;
        this.stock = connection.sync();
        this.stockKeys = List.copyOf(stockKeys);
        this.ledger = ledger;
    }

    /**
     * Sells until the stock is gone: pick a segment (the only one, or one at random among those
     * this worker has not found empty), take its lock, read its stock, write it back one lower,
     * release. The read and the write are two separate commands on purpose, so that only the
     * lock keeps two sales from reading the same level. An empty segment is left for another;
     * the worker stops once it found every segment empty.
     *
     * @param start opened once every worker is ready, so that they all start together
     * @throws InterruptedException if interrupted while waiting for the start
     */
    void work(CountDownLatch start) throws InterruptedException {
        start.await();
        List<Integer> open = new ArrayList<>();
        for (int segment = 0; segment < locks.size(); segment++) {
            open.add(segment);
        }
        while (!open.isEmpty()) {
            int pick = open.size() == 1 ? 0 : ThreadLocalRandom.current().nextInt(open.size());
            int segment = open.get(pick);
            DistributedLock lock = locks.get(segment);
            boolean soldOut;
            long began = System.nanoTime();
            lockRetryingTimeouts(lock);
            long waited = System.nanoTime() - began;
            try {
                ledger.enter(segment);
                try {
                    soldOut = sellOne(segment);
                } finally {
                    ledger.exit(segment);
                }
            } finally {
                lock.unlock();
            }
            waits.record(waited);
            acquisitions.increment();
            if (soldOut) {
                open.remove(pick);
            }
        }
    }

    /**
     * Takes the lock; a lock call that Redis did not answer in time (a loaded machine, or a
     * RedLock master slower than its attempt timeout) is counted and made again, a few times in a
     * row at most: the sale waits, as a shop's would, and the report shows how often.
     */
    private void lockRetryingTimeouts(DistributedLock lock) {
        for (int attempt = 1; ; attempt++) {
            try {
                lock.lock();
                return;
            } catch (LockTimeoutException e) {
                timedOut.increment();
                if (attempt == MAX_TIMEOUTS_IN_A_ROW) {
                    throw e;
                }
            }
        }
    }

    /** @return whether the segment's stock was already gone */
    private boolean sellOne(int segment) {
        String key = stockKeys.get(segment);
        String value = stock.get(key);
        long level = value == null ? 0 : Long.parseLong(value);
        if (level <= 0) {
            return true;
        }
        stock.set(key, Long.toString(level - 1));
        ledger.sold(segment, level);
        sold.increment();
        return false;
    }

    int number() {
        return number;
    }

    long sold() {
        return sold.sum();
    }

    /** @return lock calls that timed out and were made again */
    long timedOut() {
        return timedOut.sum();
    }

    long acquisitions() {
        return acquisitions.sum();
    }

    LatencyHistogram waits() {
        return waits;
    }

    /** Closes the lock client, then the stock connection. */
    @Override
    public void close() {
        try {
            client.close();
        } finally {
            connection.close();
        }
    }
}
