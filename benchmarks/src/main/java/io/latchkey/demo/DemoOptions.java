package io.latchkey.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's command line, parsed and validated. Immutable.
 */
final class DemoOptions {

    /** Which {@link io.latchkey.LockClient} method hands out the lock. */
    enum LockType {
        PLAIN("plain", "reentrant lock (getLock)"),
        FAIR("fair", "fair lock (getFairLock)"),
        RED("red", "RedLock over 3 masters (getRedLock)"),
        SEGMENTED("segmented", "reentrant lock (getLock)");

        final String option;
        final String description;

        LockType(String option, String description) {
            this.option = option;
            this.description = description;
        }

        static LockType parse(String value) {
            for (LockType type : values()) {
                if (type.option.equals(value.toLowerCase(Locale.ROOT))) {
                    return type;
                }
            }
            throw new UsageException("--lock must be plain, fair, red or segmented: " + value);
        }
    }

    /** A command line the demo cannot run; the message says why. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static final int RED_LOCK_MASTERS = 3;
    static final int DEFAULT_SEGMENTS = 8;

    static final String USAGE = String.join("\n",
            "Usage: java -jar latchkey-demo.jar [options]",
            "",
            "Several application instances, each with its own LockClient and worker threads, sell a",
            "limited stock. Every sale takes the lock, reads the stock from Redis, and writes it back",
            "one lower (GET then SET: without the lock, sales would be lost or doubled). At the end the",
            "demo checks that every item was sold exactly once, and exits with status 1 if not.",
            "",
            "Options:",
            "  --instances N     application instances, each a separate LockClient   (default 3)",
            "  --threads N       worker threads per instance                          (default 4)",
            "  --stock N         items to sell                                        (default 3000)",
            "  --lock KIND       plain | fair | red | segmented                       (default plain)",
            "                    red runs RedLock over 3 independent Redis masters; segmented splits the",
            "                    stock over --segments keys, each under its own lock: a buyer picks a",
            "                    segment at random and moves on when it is empty. It first sells the same",
            "                    stock under one lock, and reports the speed-up over it",
            "  --segments N      segments of --lock segmented                         (default 8)",
            "  --redis URI       use this Redis instead of starting one; for --lock red give 3 or more",
            "                    masters, comma-separated. The demo overwrites the key latchkey-demo:stock",
            "  --timeout SECS    give up (and fail) if the stock is not sold by then  (default 120)",
            "  --help            print this and exit",
            "",
            "Without --redis the demo starts its own redis-server (from PATH, or the binary shipped in",
            "the embedded-redis artifact) on a free loopback port and stops it at the end.",
            "",
            "Exit status: 0 all checks passed, 1 a check failed or a lock call failed, 2 bad usage.",
            "");

    final int instances;
    final int threads;
    final int stock;
    final LockType lock;
    /** How many parts the stock is split into, each under its own lock: 1 unless segmented. */
    final int segments;
    final List<String> redisUris;
    final Duration timeout;
    final boolean help;

    private DemoOptions(int instances, int threads, int stock, LockType lock, int segments, List<String> redisUris,
            Duration timeout, boolean help) {
        this.instances = instances;
        this.threads = threads;
        this.stock = stock;
        this.lock = lock;
        this.segments = segments;
        this.redisUris = List.copyOf(redisUris);
        this.timeout = timeout;
        this.help = help;
    }

    /**
     * @param args the command line
     * @return the options
     * @throws UsageException if an option is unknown, lacks its value, or has a bad one
     */
    static DemoOptions parse(String... args) {
        int instances = 3;
        int threads = 4;
        int stock = 3000;
        LockType lock = LockType.PLAIN;
        Integer segments = null;
        List<String> redisUris = new ArrayList<>();
        Duration timeout = Duration.ofSeconds(120);
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String inline = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                inline = arg.substring(eq + 1);
            }
            switch (name) {
                case "--help":
                case "-h":
                    help = true;
                    break;
                case "--instances":
                    instances = positive(name, inline != null ? inline : value(args, ++i, name), 64);
                    break;
                case "--threads":
                    threads = positive(name, inline != null ? inline : value(args, ++i, name), 256);
                    break;
                case "--stock":
                    stock = positive(name, inline != null ? inline : value(args, ++i, name), 10_000_000);
                    break;
                case "--lock":
                    lock = LockType.parse(inline != null ? inline : value(args, ++i, name));
                    break;
                case "--segments":
                    segments = positive(name, inline != null ? inline : value(args, ++i, name), 1024);
                    break;
                case "--redis":
                    for (String uri : (inline != null ? inline : value(args, ++i, name)).split(",")) {
                        if (!uri.isBlank()) {
                            redisUris.add(uri.strip());
                        }
                    }
                    break;
                case "--timeout":
                    timeout = Duration.ofSeconds(positive(name, inline != null ? inline : value(args, ++i, name), 86_400));
                    break;
                default:
                    throw new UsageException("unknown option: " + arg);
            }
        }
        if (lock == LockType.RED && !redisUris.isEmpty() && redisUris.size() < RED_LOCK_MASTERS) {
            throw new UsageException("--lock red needs at least " + RED_LOCK_MASTERS
                    + " comma-separated --redis masters, got " + redisUris.size());
        }
        if (lock != LockType.RED && redisUris.size() > 1) {
            throw new UsageException("--lock " + lock.option + " uses one Redis; got " + redisUris.size() + " URIs");
        }
        if (segments != null && lock != LockType.SEGMENTED) {
            throw new UsageException("--segments needs --lock segmented");
        }
        int parts = lock == LockType.SEGMENTED ? (segments == null ? DEFAULT_SEGMENTS : segments) : 1;
        if (parts > stock) {
            throw new UsageException("--segments must not exceed --stock (" + stock + "): " + parts);
        }
        return new DemoOptions(instances, threads, stock, lock, parts, redisUris, timeout, help);
    }

    private static String value(String[] args, int index, String name) {
        if (index >= args.length) {
            throw new UsageException(name + " needs a value");
        }
        return args[index];
    }

    private static int positive(String name, String value, int max) {
        int parsed;
        try {
            parsed = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be a whole number: " + value);
        }
        if (parsed < 1 || parsed > max) {
            throw new UsageException(name + " must be between 1 and " + max + ": " + value);
        }
        return parsed;
    }
}
