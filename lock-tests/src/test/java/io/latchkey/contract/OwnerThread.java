package io.latchkey.contract;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One dedicated thread that runs the tasks given to it in order, so that a blocking lock call
 * and its unlock have the same owner. Tests use one per simulated lock holder or waiter.
 */
public final class OwnerThread implements AutoCloseable {

    /** The longest any single task may take before the test gives up on it. */
    static final Duration TASK_TIMEOUT = Duration.ofSeconds(20);

    private final ExecutorService executor;
    private final Thread thread;

    OwnerThread(String name) {
        this.executor = Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, name);
            t.setDaemon(true);
            return t;
        });
        this.thread = get(executor.submit(Thread::currentThread));
    }

    /** @return the id of the thread, which is the owner id of its blocking lock calls */
    public long id() {
        return thread.getId();
    }

    /** @return the thread, to interrupt it or look at its state */
    public Thread thread() {
        return thread;
    }

    /** @return true when the thread is parked, which for a running lock call means it is waiting */
    public boolean isParked() {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }

    /** Starts {@code task} on this thread and returns at once. */
    public <T> Future<T> submit(Callable<T> task) {
        return executor.submit(task);
    }

    /** Runs {@code task} on this thread and returns its result, rethrowing what it threw. */
    public <T> T call(Callable<T> task) throws Exception {
        try {
            return executor.submit(task).get(TASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw (Error) cause;
        }
    }

    /** Runs {@code task} on this thread and waits for it, rethrowing what it threw. */
    public void run(ThrowingRunnable task) throws Exception {
        call(() -> {
            task.run();
            return null;
        });
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static <T> T get(Future<T> future) {
        try {
            return future.get(TASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A task that returns nothing and may throw. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }
}
