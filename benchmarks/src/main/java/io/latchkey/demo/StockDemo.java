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
 * {@code --threads} workers each sell {@code --stock} items under one lock, with live progress
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

    /** One run: the instances, their workers, the progress line and the report. */
    private static final class Run {

        private final DemoOptions options;
        private final DemoRedis redis;
        private final PrintStream out;
        private final PrintStream err;
        private final SalesLedger ledger;

        Run(DemoOptions options, DemoRedis redis, PrintStream out, PrintStream err) {
            this.options = options;
            this.redis = redis;
            this.out = out;
            this.err = err;
            this.ledger = new SalesLedger(options.stock);
        }

        int execute() throws InterruptedException {
            RedisClient stockClient = RedisClient.create();
            List<ShopInstance> instances = new ArrayList<>();
            int workers = options.instances * options.threads;
            ExecutorService pool = Executors.newFixedThreadPool(workers, workerThreads());
            try {
                RedisURI stockUri = RedisURI.create(redis.uris().get(0));
                stockUri.setTimeout(REDIS_TIMEOUT);
                try (StatefulRedisConnection<String, String> setup = stockClient.connect(stockUri)) {
                    setup.sync().set(STOCK_KEY, Integer.toString(options.stock));
                }
                try {
                    for (int i = 1; i <= options.instances; i++) {
                        instances.add(openInstance(i, stockClient, stockUri));
                    }
                } catch (IllegalStateException e) {
                    // The lock kind's module is missing: getFairLock / getRedLock say which.
                    err.println("latchkey-demo: --lock " + options.lock.option + ": " + e.getMessage());
                    return USAGE;
                }
                printHeader();

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

                long stockLeft = readStock(stockClient, stockUri);
                DemoReport report = new DemoReport(options, redis, ledger, instances, elapsed, stockLeft, failures);
                out.print(report.render());
                return report.passed() ? PASSED : FAILED;
            } finally {
                pool.shutdownNow();
                instances.forEach(ShopInstance::close);
                pool.awaitTermination(10, TimeUnit.SECONDS);
                stockClient.shutdown();
            }
        }

        private ShopInstance openInstance(int number, RedisClient stockClient, RedisURI stockUri) {
            LockConfig.Builder config = LockConfig.builder();
            if (options.lock == LockType.RED) {
                config.redLockAddresses(redis.uris().toArray(String[]::new));
            } else {
                config.address(redis.uris().get(0));
            }
            LockClient client = LockClient.create(config.build());
            try {
                DistributedLock lock;
                switch (options.lock) {
                    case FAIR:
                        lock = client.getFairLock(LOCK_NAME);
                        break;
                    case RED:
                        lock = client.getRedLock(LOCK_NAME);
                        break;
                    default:
                        lock = client.getLock(LOCK_NAME);
                }
                return new ShopInstance(number, client, lock, stockClient.connect(stockUri), STOCK_KEY, ledger);
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

        private long readStock(RedisClient stockClient, RedisURI stockUri) {
            try (StatefulRedisConnection<String, String> check = stockClient.connect(stockUri)) {
                String value = check.sync().get(STOCK_KEY);
                return value == null ? Long.MIN_VALUE : Long.parseLong(value);
            } catch (RuntimeException e) {
                err.println("latchkey-demo: cannot read the stock left: " + e);
                return Long.MIN_VALUE;
            }
        }

        private void printHeader() {
            out.printf("Latchkey demo: %d instance%s × %d thread%s sell %,d items under one %s%n",
                    options.instances, options.instances == 1 ? "" : "s",
                    options.threads, options.threads == 1 ? "" : "s", options.stock, options.lock.description);
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
