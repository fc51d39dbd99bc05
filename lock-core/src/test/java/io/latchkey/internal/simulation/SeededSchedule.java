package io.latchkey.internal.simulation;

import io.latchkey.internal.time.ManualTicker;
import io.latchkey.internal.time.ManualTimer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The scheduler of a deterministic simulation: a seeded {@link Random} picks each step among what
 * the simulation offers (a command reaching Redis, its answer reaching a client, an owner's next
 * step, ...) and time passing on one {@link ManualTimer}; after each step the simulation injects
 * its faults and checks its invariants. The same seed replays the same schedule, with a trace of
 * its last events if asked. Subclasses say what may happen and what must hold; this class says
 * in what order it happens. Not thread-safe: one thread runs it.
 */
public abstract class SeededSchedule {

    private static final int STEP_LIMIT = 200_000;

    /** The seed of {@link #random}, named in every violation so that it can be replayed. */
    protected final long seed;
    /** Every choice of the schedule: the next step, the faults, the owners' choices. */
    protected final Random random;
    protected final ManualTicker clock = new ManualTicker();
    /** The one timer of every client and every timeout. */
    protected final ManualTimer timer = ManualTimer.manual(clock);
    /** Owners' steps that are due, in the order they became due. */
    protected final ArrayDeque<Runnable> ready = new ArrayDeque<>();

    private final boolean traced;
    private final int traceLength;
    private final String replayProperty;
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private final List<Runnable> choices = new ArrayList<>();
    private final List<Supplier<String>> names = new ArrayList<>();
    private int steps;
    private Violation violation;

    /**
     * @param seed the seed of the schedule
     * @param traced whether to keep the last events, to print with a violation
     * @param traceLength how many of the last events to keep
     * @param replayProperty the system property that replays one seed, for the violation's message
     */
    protected SeededSchedule(long seed, boolean traced, int traceLength, String replayProperty) {
        this.seed = seed;
        this.random = new Random(seed);
        this.traced = traced;
        this.traceLength = traceLength;
        this.replayProperty = replayProperty;
    }

    /**
     * Runs the schedule to its end: until no owner has anything left to do, nothing is on its way,
     * and the timer owes nothing.
     *
     * @return the steps taken
     * @throws Violation if an invariant broke
     */
    public final int run() {
        while (!finished()) {
            if (++steps > STEP_LIMIT) {
                fail("no end after " + STEP_LIMIT + " steps: " + describeOwners());
            }
            step();
            if (violation != null) {
                throw violation;
            }
            check();
        }
        checkLeftNothing();
        return steps;
    }

    private boolean finished() {
        return ready.isEmpty() && settled() && timer.pending() == 0;
    }

    private void step() {
        choices.clear();
        names.clear();
        if (!ready.isEmpty()) {
            choose(() -> ready.poll().run(), () -> "owner step");
        }
        offerChoices();
        // Time moves on when nothing else is left (by up to a tenth of a second, so that what
        // waits for the timer comes soon), and now and then anyway.
        boolean idle = choices.isEmpty();
        if (idle || random.nextInt(8) == 0) {
            long millis = 1 + random.nextInt(idle ? 100 : random.nextInt(10) == 0 ? 200 : 15);
            choose(() -> timer.advance(Duration.ofMillis(millis)), () -> "time +" + millis + " ms");
        }
        int pick = random.nextInt(choices.size());
        log(names.get(pick));
        choices.get(pick).run();
        injectFaults();
    }

    /** @return true if every owner is done and no command or answer is on its way */
    protected abstract boolean settled();

    /** Offers, through {@link #choose}, what may happen next besides a due owner step and time passing. */
    protected abstract void offerChoices();

    /** Injects this step's faults, each by its {@link #chance}. */
    protected abstract void injectFaults();

    /** Checks the invariants after a step, calling {@link #fail} on a broken one. */
    protected abstract void check();

    /** Checks that nothing is left once every owner is done. */
    protected abstract void checkLeftNothing();

    /** @return the simulated Redis and clients, for a violation's message */
    protected abstract String describeState();

    /** @return every owner and its state, for a schedule that does not end */
    protected abstract String describeOwners();

    /**
     * @param choice what may happen as the next step
     * @param what its name in the trace, built only if the schedule is traced
     */
    protected final void choose(Runnable choice, Supplier<String> what) {
        choices.add(choice);
        names.add(what);
    }

    /** @return true with this probability, drawn from the schedule's random */
    protected final boolean chance(double probability) {
        return probability > 0 && random.nextDouble() < probability;
    }

    /** @return the steps taken so far */
    protected final int steps() {
        return steps;
    }

    /** Traced only when asked: a failing seed is run again with its trace (the same schedule). */
    protected final void log(Supplier<String> event) {
        if (traced) {
            trace.add(String.format(Locale.ROOT, "%6d %9.3f ms  %s", steps, clock.read() / 1e6, event.get()));
            if (trace.size() > traceLength) {
                trace.poll();
            }
        }
    }

    /** Traced only when asked. */
    protected final void log(String event) {
        log(() -> event);
    }

    /**
     * Throws the violation, and keeps it: one found in a future's callback would be swallowed
     * there, so {@link #run} throws it after the step.
     */
    protected final void fail(String what) {
        if (violation != null) {
            throw violation;
        }
        violation = new Violation("seed " + seed + ": " + what + "\n  " + describeState()
                + "\n  last events:\n    " + String.join("\n    ", trace) + "\n  replay: -D" + replayProperty + "=" + seed);
        throw violation;
    }

    /**
     * Runs one seed's schedule untraced (fast); if it breaks an invariant, runs the same schedule
     * again traced, so that its events are printed, and fails with the first run's violation.
     *
     * @param seed the seed
     * @param schedules makes a seed's schedule, traced or not
     * @return the steps taken
     * @throws Violation if an invariant broke
     */
    public static long runTracingAFailure(long seed, Factory schedules) {
        try {
            return schedules.schedule(seed, false).run();
        } catch (Violation untraced) {
            schedules.schedule(seed, true).run();
            throw untraced;
        }
    }

    /** Makes the schedule of a seed. */
    @FunctionalInterface
    public interface Factory {
        /**
         * @param seed the seed
         * @param traced whether to print its events
         * @return the schedule
         */
        SeededSchedule schedule(long seed, boolean traced);
    }

    /** A broken invariant, with the seed and the events that led to it. */
    public static final class Violation extends AssertionError {
        private static final long serialVersionUID = 1L;

        Violation(String message) {
            super(message);
        }
    }
}
