package io.latchkey.demo;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.demo.DemoOptions.LockType;
import io.latchkey.demo.DemoOptions.UsageException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo: {@code --instances} application instances (separate {@link LockClient}s) with
 * {@code --threads} workers each sell {@code --stock} items under one lock, or split over
 * {@code --segments} keys each under its own lock ({@code --lock segmented}), with live progress
 * and a final table that proves every item was sold exactly once. See {@link DemoOptions#USAGE}.
 */
public final class StockDemo {

    /** Exit status: every check passed. */
    public static final int PASSED = 0;
    /** Exit status: a check failed, a lock call failed, or the run timed out. */
    public static final int FAILED = 1;
    /** Exit status: the command line was wrong, or the lock kind is not available. */
    public static final int USAGE = 2;

    static final String STOCK_KEY = "latchkey-demo:stock";
    static final String LOCK_NAME = "latchkey-demo:stock-lock";

    private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(5);

    private StockDemo() {
    }

    /**
     * Runs the demo and exits with its status.
     *
     * @param args the command line; {@code --help} lists it
     */
    public static void main(String[] args) {
        System.exit(run(System.out, System.err, args));
    }

    /**
     * Runs the demo in this JVM.
     *
     * @param out where the progress and the report go
     * @param err where usage errors go
     * @param args the command line
     * @return {@link #PASSED}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        quietLogging();
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (UsageException e) {
            err.println("latchkey-demo: " + e.getMessage());
            err.println("Try --help.");
            return USAGE;
        }
        if (options.help) {
            out.print(DemoOptions.USAGE);
            return PASSED;
        }
        int servers = options.lock == LockType.RED ? DemoOptions.RED_LOCK_MASTERS : 1;
        try (DemoRedis redis = DemoRedis.open(options.redisUris, servers)) {
            return new StockDemo.Run(options, redis, out, err).execute();
        } catch (Exception e) {
            err.println("latchkey-demo: " + e);
            return FAILED;
        }
    }

    /** Sets SLF4J's simple logger to warnings only, unless the user chose a level. */
    private static void quietLogging() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
    }

    /**
     * One run: the instances, their workers, the progress line and the report; for
     * {@code --lock segmented} two sales of the same stock, under one lock and then split over
     * the segments, so that the speed-up is measured on the same machine and Redis.
     */
    private static final class Run {

        private final DemoOptions options;
        private final DemoRedis redis;
        private final PrintStream out;
        private final PrintStream err;

        Run(DemoOptions options, DemoRedis redis, PrintStream out, PrintStream err) {
            this.options = options;
            this.redis = redis;
            this.out = out;
            this.err = err;
        }

        int execute() throws InterruptedException {
            if (options.lock != LockType.SEGMENTED) {
                DemoReport report = sell(options.lock, 1, null);
                return report == null ? USAGE : report.passed() ? PASSED : FAILED;
            }
            out.printf("Phase 1 of 2: the same stock under one lock, for comparison%n");
            DemoReport single = sell(LockType.PLAIN, 1, null);
            if (single == null) {
                return USAGE;
            }
            out.printf("%nPhase 2 of 2: the stock split over %d segments%n", options.segments);
            DemoReport segmented = sell(LockType.SEGMENTED, options.segments, single);
            return segmented == null ? USAGE : single.passed() && segmented.passed() ? PASSED : FAILED;
        }

        /**
         * Sells the whole stock once and prints the report.
         *
         * @param kind the lock kind of every segment
         * @param segments how many parts the stock is split into, each under its own lock
         * @param baseline the same sale under one lock, to compare with; null for none
         * @return the report, or null if the lock kind is not available
         */
        private DemoReport sell(LockType kind, int segments, DemoReport baseline) throws InterruptedException {
            SalesLedger ledger = new SalesLedger(options.stock, segments);
            List<String> stockKeys = new ArrayList<>();
            List<String> lockNames = new ArrayList<>();
            for (int i = 0; i < segments; i++) {
                boolean whole = kind != LockType.SEGMENTED;
                stockKeys.add(whole ? STOCK_KEY : STOCK_KEY + ":segment-" + i);
                lockNames.add(whole ? LOCK_NAME : LOCK_NAME + ":segment-" + i);
            }
            RedisClient stockClient = RedisClient.create();
            List<ShopInstance> instances = new ArrayList<>();
            int workers = options.instances * options.threads;
            ExecutorService pool = Executors.newFixedThreadPool(workers, workerThreads());
            try {
                RedisURI stockUri = RedisURI.create(redis.uris().get(0));
                stockUri.setTimeout(REDIS_TIMEOUT);
                try (StatefulRedisConnection<String, String> setup = stockClient.connect(stockUri)) {
                    for (int i = 0; i < segments; i++) {
                        setup.sync().set(stockKeys.get(i), Integer.toString(ledger.stockOf(i)));
                    }
                }
                try {
                    for (int i = 1; i <= options.instances; i++) {
                        instances.add(openInstance(i, kind, lockNames, stockKeys, ledger, stockClient, stockUri));
                    }
                } catch (IllegalStateException e) {
                    // The lock kind's module is missing: getFairLock / getRedLock say which.
                    err.println("latchkey-demo: --lock " + options.lock.option + ": " + e.getMessage());
                    return null;
                }
                printHeader(kind, segments);

                CountDownLatch start = new CountDownLatch(1);
                List<CompletableFuture<Void>> running = new ArrayList<>();
                for (ShopInstance instance : instances) {
                    for (int t = 0; t < options.threads; t++) {
                        running.add(CompletableFuture.runAsync(() -> work(instance, start), pool));
                    }
                }
                ProgressLine progress = new ProgressLine(out, System.console() != null, ledger, instances);
                long began = System.nanoTime();
                progress.start();
                start.countDown();
                List<Throwable> failures = awaitWorkers(running);
                long elapsed = System.nanoTime() - began;
                progress.stop();

                long stockLeft = readStock(stockClient, stockUri, stockKeys);
                DemoReport report = new DemoReport(options, kind, redis, ledger, instances, elapsed, stockLeft, failures, baseline);
                out.print(report.render());
                return report;
            } finally {
                pool.shutdownNow();
                instances.forEach(ShopInstance::close);
                pool.awaitTermination(10, TimeUnit.SECONDS);
                stockClient.shutdown();
            }
        }

        private ShopInstance openInstance(int number, LockType kind, List<String> lockNames, List<String> stockKeys,
                SalesLedger ledger, RedisClient stockClient, RedisURI stockUri) {
            LockConfig.Builder config = LockConfig.builder();
            if (kind == LockType.RED) {
                config.redLockAddresses(redis.uris().toArray(String[]::new));
            } else {
                config.address(redis.uris().get(0));
            }
            LockClient client = LockClient.create(config.build());
            try {
                List<DistributedLock> locks = new ArrayList<>();
                for (String lockName : lockNames) {
                    switch (kind) {
                        case FAIR:
                            locks.add(client.getFairLock(lockName));
                            break;
                        case RED:
                            locks.add(client.getRedLock(lockName));
                            break;
                        default:
                            locks.add(client.getLock(lockName));
                    }
                }
                return new ShopInstance(number, client, locks, stockClient.connect(stockUri), stockKeys, ledger);
            } catch (RuntimeException | Error e) {
                client.close();
                throw e;
            }
        }

        private void work(ShopInstance instance, CountDownLatch start) {
            try {
                instance.work(start);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted before the start", e);
            }
        }

        /** Waits for every worker, at most {@code --timeout} in all; returns what went wrong. */
        private List<Throwable> awaitWorkers(List<CompletableFuture<Void>> running) throws InterruptedException {
            List<Throwable> failures = new ArrayList<>();
            CompletableFuture<Void> all = CompletableFuture.allOf(running.toArray(CompletableFuture[]::new));
            try {
                all.get(options.timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                failures.add(new TimeoutException("the stock was not sold within --timeout "
                        + options.timeout.toSeconds() + " s"));
            } catch (ExecutionException e) {
                // Reported per worker below.
            }
            for (CompletableFuture<Void> worker : running) {
                if (worker.isCompletedExceptionally()) {
                    try {
                        worker.join();
                    } catch (RuntimeException e) {
                        failures.add(e.getCause() != null ? e.getCause() : e);
                    }
                }
            }
            return failures;
        }

        /** @return the stock left over every segment; {@link Long#MIN_VALUE} if one cannot be read */
        private long readStock(RedisClient stockClient, RedisURI stockUri, List<String> stockKeys) {
            try (StatefulRedisConnection<String, String> check = stockClient.connect(stockUri)) {
                long left = 0;
                for (String key : stockKeys) {
                    String value = check.sync().get(key);
                    if (value == null) {
                        return Long.MIN_VALUE;
                    }
                    left += Long.parseLong(value);
                }
                return left;
            } catch (RuntimeException e) {
                err.println("latchkey-demo: cannot read the stock left: " + e);
                return Long.MIN_VALUE;
            }
        }

        private void printHeader(LockType kind, int segments) {
            String instances = options.instances + " instance" + (options.instances == 1 ? "" : "s");
            String threads = options.threads + " thread" + (options.threads == 1 ? "" : "s");
            if (kind == LockType.SEGMENTED) {
                out.printf("Latchkey demo: %s × %s sell %,d items in %d segments, each under its own %s%n",
                        instances, threads, options.stock, segments, kind.description);
            } else {
                out.printf("Latchkey demo: %s × %s sell %,d items under one %s%n", instances, threads, options.stock,
                        kind.description);
            }
            out.printf("Redis: %s (%s)%n%n", String.join(", ", redis.uris()), redis.description());
            out.flush();
        }

        private static ThreadFactory workerThreads() {
            AtomicInteger next = new AtomicInteger();
            return runnable -> {
                Thread thread = new Thread(runnable, "demo-worker-" + next.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            };
        }
    }
}
