package io.latchkey.faults;

import java.util.SplittableRandom;

/**
 * How long the workers' critical sections last, as shares per 1,000 holds: empty ones, short ones
 * (1 to 40 ms), and long ones, longer than the renewal period (renewal + 10 to 209 ms), so that a
 * renewal, a pause or a restart finds holders inside. The long ones set the harness's pace: a
 * long hold keeps its lock, and every thread that picked it, waiting for most of a second.
 * Immutable.
 *
 * @param emptyPerMille holds that do nothing inside
 * @param shortPerMille holds that stay 1 to 40 ms
 * @param longPerMille holds that stay longer than the renewal period
 */
record CriticalSections(int emptyPerMille, int shortPerMille, int longPerMille) {

    /** The short run's mix: mostly empty, some a few milliseconds, 3 % longer than the renewal period. */
    static final CriticalSections DEFAULT = new CriticalSections(850, 120, 30);

    CriticalSections {
        if (emptyPerMille < 0 || shortPerMille < 0 || longPerMille < 0
                || emptyPerMille + shortPerMille + longPerMille != 1000) {
            throw new IllegalArgumentException("critical-section shares must be whole numbers >= 0 adding up to 1000: "
                    + emptyPerMille + "," + shortPerMille + "," + longPerMille);
        }
    }

    /**
     * @param text {@code empty,short,long}, as {@link #toString()} writes it
     * @return the mix
     * @throws IllegalArgumentException if the text is not three shares adding up to 1000
     */
    static CriticalSections parse(String text) {
        String[] shares = text.split(",", -1);
        if (shares.length != 3) {
            throw new IllegalArgumentException("critical-section shares must be three numbers, empty,short,long: " + text);
        }
        try {
            return new CriticalSections(Integer.parseInt(shares[0].trim()), Integer.parseInt(shares[1].trim()),
                    Integer.parseInt(shares[2].trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("critical-section shares must be whole numbers: " + text, e);
        }
    }

    /**
     * @param random the calling thread's random numbers
     * @param renewalMillis the watchdog's renewal period
     * @return how long the next critical section lasts, in ms (0: empty)
     */
    long nextMillis(SplittableRandom random, long renewalMillis) {
        int roll = random.nextInt(1000);
        if (roll < emptyPerMille) {
            return 0;
        }
        if (roll < emptyPerMille + shortPerMille) {
            return 1 + random.nextInt(40);
        }
        return renewalMillis + 10 + random.nextInt(200);
    }

    /** @return {@code empty,short,long}, what {@link #parse(String)} reads (the worker's argument) */
    @Override
    public String toString() {
        return emptyPerMille + "," + shortPerMille + "," + longPerMille;
    }
}
