package io.latchkey.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding a distributed lock: acquired before the call, released in
 * {@code finally} after it, however it ends.
 *
 * <pre>{@code
 * @Locked(name = "orders:#{#order.id}", waitTime = "5s")
 * public void ship(Order order) {
 *     long token = CurrentLock.fencingToken();   // the hold's fencing token, for fenced writes
 *     ...
 * }
 * }</pre>
 *
 * <ul>
 * <li><b>Owner.</b> For a method that returns a value, the calling thread, as for
 *     {@code lock()}: a {@code @Locked} method that calls another one of the same name re-enters
 *     the lock. Virtual threads are threads like any other here.</li>
 * <li><b>Asynchronous methods</b> (returning {@code CompletableFuture} or
 *     {@code CompletionStage}): the lock is acquired on the calling thread before the method
 *     runs, and released when the returned future completes. The hold belongs to the call, not to
 *     the thread (another call on the same thread waits for it), and the future the caller gets
 *     completes once the lock is released, with the method's outcome, on the thread that
 *     completes the release: one of the client's I/O threads, or the thread that completed the
 *     method's own future when the release needed no round trip to Redis. Stages that block
 *     belong on an executor of the application's ({@code thenApplyAsync(f, executor)}).
 *     What keeps the method from running (the lock not obtained in time, an interrupt, Redis
 *     failing, a name that cannot be made) fails that future rather than being thrown; only what
 *     the method itself throws is thrown.</li>
 * <li><b>Reactive methods</b> (returning Reactor's {@code Mono} or {@code Flux}): each
 *     subscription takes the lock, for an owner of its own, and releases it before passing on
 *     completion or error, or when it is cancelled (a cancel during the wait gives the wait up
 *     and takes nothing later). No thread waits for the lock; signals after the acquisition come
 *     on the client's I/O threads. {@link OnTimeout#THROW} fails the publisher with
 *     {@link LockNotAcquiredException}, {@link OnTimeout#SKIP} completes it empty. The method is
 *     called at each subscription, under the lock; {@link CurrentLock} is set while it builds its
 *     publisher, not while that runs. Reactor is optional: the starter needs it only for these.</li>
 * <li><b>Not obtained in time:</b> {@link LockNotAcquiredException} (an asynchronous method's
 *     future fails with it), or with {@link OnTimeout#SKIP} the method is not run and returns
 *     {@code null} ({@code Optional.empty()}, or a future completed with {@code null}, for those
 *     return types).</li>
 * <li><b>A job that every node schedules:</b> {@link #lockAtLeastFor()} keeps the lock held for
 *     that long after the method began, so that the other nodes' triggers of the same period
 *     skip it; the release is put off on a timer, and the method returns at once.</li>
 * <li><b>Lease lost</b> while the method ran: its result stands, and
 *     {@link io.latchkey.LeaseLostException} is thrown after it (added as suppressed if the method
 *     threw), since its work may not have been exclusive.</li>
 * </ul>
 *
 * <p>Applies to public methods of Spring beans called through the bean (not from inside the same
 * object), as Spring's other proxy-based annotations do. On a class, it applies to every public
 * method of it except those that {@link Object} declares ({@code toString}, {@code equals},
 * {@code hashCode}, also where the class overrides them); an annotation on a method takes
 * precedence over its class's.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Locked {

    /**
     * The lock's name: a Spring template expression over the method's arguments, evaluated per
     * call. {@code #{...}} parts are SpEL, in which {@code #name} is the argument of that name
     * (compile with {@code -parameters}, as Spring Boot's build plugins do), {@code #p0}/{@code #a0}
     * the first argument, and the root object is the bean.
     *
     * <p>Every part must have a value at every call: otherwise the calls would share one lock
     * ({@code "orders:"} for every order). A part that refers to a parameter the method does not
     * have fails the application's start, naming the method and the name (for {@code #name}
     * only where the parameter names were compiled in; else at the call). A part that is null or
     * empty at a call fails that call with an {@link IllegalStateException} naming the method and
     * the name (an asynchronous method's future fails with it), and the method does not run.
     *
     * @return the name template, e.g. {@code "orders:#{#order.id}"}
     */
    String name();

    /** {@return the kind of lock: plain (default), fair, or RedLock} */
    Kind kind() default Kind.PLAIN;

    /**
     * How long to wait for the lock, in Spring Boot's duration format ({@code "5s"},
     * {@code "500ms"}, {@code "PT1M"}); {@code "0s"} tries once. This and the other durations may
     * be {@code ${...}} placeholders of the application's environment, as in {@code @Scheduled}
     * ({@code "${orders.report.lock-at-least-for:4m}"}), resolved at start-up.
     *
     * @return the longest wait; default {@code "5s"}
     */
    String waitTime() default "5s";

    /**
     * The lease, in the same format: empty (the default) takes the watchdog lease, renewed while
     * the method runs; a duration takes a fixed lease that is never renewed, so the lock is gone
     * after it even if the method still runs.
     *
     * @return the fixed lease, or empty for the watchdog's
     */
    String leaseTime() default "";

    /**
     * How long after the method began the lock stays held at least, in the same format: empty
     * (the default) releases it when the method ends. Meant for a {@code @Scheduled} job that
     * runs on every node of a cluster with {@code waitTime = "0s", onTimeout = SKIP}: a job that
     * ends before the other nodes' triggers of the same period come (their clocks and start times
     * differ) would otherwise be free to run again on each of them in turn. Set it a little below
     * the period, and above the spread of the nodes' triggers.
     *
     * <p>The method returns (its future completes) as soon as it is done; the release is put off
     * on a timer until that time has passed since the lock was acquired, whatever the method's
     * outcome, and no thread waits for it. The hold stays valid meanwhile: the watchdog goes on
     * renewing its lease, or a fixed {@link #leaseTime()} must be at least as long (a shorter one
     * fails the application's start, naming the method). A lease lost while the method ran is
     * reported as without it, and the lock is not held longer. With it, the hold belongs to the
     * call, not to the thread, as for an asynchronous method: a next call on the same thread (the
     * scheduler's one thread, say) is excluded like any other, not a re-entry.
     *
     * <p>When the application context closes, the releases still waiting are done at once, so
     * another node may run the job before this node's {@code lockAtLeastFor} ended; a node that
     * dies without closing leaves the lock until its lease runs out.
     *
     * @return the shortest hold, or empty to release at the method's end
     */
    String lockAtLeastFor() default "";

    /** {@return what to do when the lock was not obtained within {@link #waitTime()}} */
    OnTimeout onTimeout() default OnTimeout.THROW;

    /** Kinds of lock, as {@link io.latchkey.LockClient} gives them. */
    enum Kind {
        /** {@code getLock}: reentrant, not fair. */
        PLAIN,
        /** {@code getFairLock}: first come, first served. */
        FAIR,
        /** {@code getRedLock}: a majority of {@code latchkey.redlock.addresses}. */
        RED
    }

    /** What happens when the lock was not obtained in time. */
    enum OnTimeout {
        /** Throw {@link LockNotAcquiredException}; an asynchronous method returns a future failed with it. */
        THROW,
        /** Do not run the method; return {@code null}, an empty {@code Optional} or a future of {@code null}. */
        SKIP
    }
}
