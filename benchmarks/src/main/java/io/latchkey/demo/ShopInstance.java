package io.latchkey.demo;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.measure.LatencyHistogram;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;

/**
 * One application instance of the demo: its own {@link LockClient}, its own Redis connection for
 * the stock, and the numbers its workers produced. Thread-safe; every worker thread of the
 * instance runs {@link #work(CountDownLatch)} on it.
 */
final class ShopInstance implements AutoCloseable {

    private final int number;
    private final LockClient client;
    private final DistributedLock lock;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> stock;
    private final String stockKey;
    private final SalesLedger ledger;

    private final LongAdder sold = new LongAdder();
    private final LongAdder acquisitions = new LongAdder();
    private final LatencyHistogram waits = new LatencyHistogram();

    ShopInstance(int number, LockClient client, DistributedLock lock, StatefulRedisConnection<String, String> connection,
            String stockKey, SalesLedger ledger) {
        this.number = number;
        this.client = client;
        this.lock = lock;
        this.connection = connection;
        this.stock = connection.sync();
        this.stockKey = stockKey;
        this.ledger = ledger;
    }

    /**
     * Sells until the stock is gone: take the lock, read the stock, write it back one lower,
     * release. The read and the write are two separate commands on purpose, so that only the
     * lock keeps two sales from reading the same level.
     *
     * @param start opened once every worker is ready, so that they all start together
     * @throws InterruptedException if interrupted while waiting for the start
     */
    void work(CountDownLatch start) throws InterruptedException {
        start.await();
        boolean soldOut = false;
        while (!soldOut) {
            long began = System.nanoTime();
            lock.lock();
            long waited = System.nanoTime() - began;
            try {
                ledger.enter();
                try {
                    soldOut = sellOne();
                } finally {
                    ledger.exit();
                }
            } finally {
                lock.unlock();
            }
            waits.record(waited);
            acquisitions.increment();
        }
    }

    /** @return whether the stock was already gone */
    private boolean sellOne() {
        String value = stock.get(stockKey);
        long level = value == null ? 0 : Long.parseLong(value);
        if (level <= 0) {
            return true;
        }
        stock.set(stockKey, Long.toString(level - 1));
        ledger.sold(level);
        sold.increment();
        return false;
    }

    int number() {
        return number;
    }

    long sold() {
        return sold.sum();
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
