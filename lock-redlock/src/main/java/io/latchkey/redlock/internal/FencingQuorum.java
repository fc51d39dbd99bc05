package io.latchkey.redlock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A RedLock hold's fencing token, and why it exceeds every earlier hold's.
 *
 * <p>Every master has its own counter per hash slot, which its acquire script advances for each
 * new hold to max(counter + 1, the master's TIME in microseconds), the token it answers (see
 * lock-core's acquire.lua). The RedLock's token is the highest that the granting masters answered: call it
 * T. Before the hold is handed to its owner, the counters of a majority of masters are made at
 * least T: the granting masters that answered less are raised to T, and the hold counts as
 * acquired only if a majority then stands at T or more and the hold is still valid (the lease,
 * less the time since the try began, less the drift allowance, is positive).
 *
 * <p>The argument. Let W be that majority, all at T or more before the owner sees T. The next
 * hold is granted by a majority Q', which shares at least one master M with W. M grants the next
 * hold only after this hold's lease on M has run out or been released, and M's counter stood at
 * T or more before that: its raise was answered before the validity check, which passed only
 * while this hold's lease on M still ran. Counters only grow, so M answers the next hold with
 * T + 1 or more, and the next token, the highest of Q', exceeds T. This needs M to keep its data.
 * When no master of Q' kept it (restarts without persistence, FLUSHALL), the clocks carry on: the
 * next token is at least the TIME of each master of Q', which exceeds T unless that master's
 * clock is behind the clock that gave T (or the counter that T came from ran ahead of its clock)
 * by more than the time between the two holds.
 *
 * <p>A cohort's hold (local hand-off) reserves a block of B tokens on each granting master:
 * master i answers t(i), the first of its block, and its counter ends at t(i) + B - 1. The hold's
 * token is again T, the highest t(i); the cohort gives T to its first owner and T + 1 to
 * T + B - 1 to the owners it passes the hold to, each while the quorum's lease as confirmed still
 * runs. So the majority is raised to T + B - 1, the block's end (a master that answered T stands
 * there already), and the argument above, read with T + B - 1 for T, puts the next hold's token
 * above every token of the block: the next majority shares a master whose counter reached
 * T + B - 1 before the first owner saw T, and that master grants only once the cohort's part
 * there is released or ran out, after every hand-off.
 *
 * <p>Costs: no round trip when a majority already answered T; one parallel round trip to the
 * lagging granting masters otherwise. Since tokens come from each master's own clock, masters
 * rarely answer the same token, so most acquisitions take that round trip.
 */
final class FencingQuorum {

    private FencingQuorum() {
    }

    /**
     * @param tokens the granting masters and their answers
     * @return the hold's token: the highest answer
     */
    static long tokenOf(Map<Master, Long> tokens) {
        return tokens.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    /**
     * Raises the lagging granting masters to {@code lastToken}, each bounded by its attempt timeout.
     *
     * @param tokens the granting masters and their answers: each the first of a block that ends
     *     {@code lastToken - token} further on the master's counter
     * @param token the hold's token
     * @param lastToken the last token of the hold's block: {@code token} for an owner's hold, the
     *     last a cohort may hand on for a cohort's
     * @param majority how many masters make a majority
     * @return completes with true once a majority stands at {@code lastToken} or more, false if
     *     too few raises succeeded; never fails
     */
    static CompletableFuture<Boolean> raise(Map<Master, Long> tokens, long token, long lastToken, int majority) {
        List<CompletableFuture<Boolean>> raised = new ArrayList<>(tokens.size());
        tokens.forEach((master, answered) -> raised.add(answered >= token
                ? CompletableFuture.completedFuture(true)
                : master.withinAttemptTimeout(master.raiseFence(lastToken)).handle((value, failure) -> failure == null)));
        return CompletableFuture.allOf(raised.toArray(CompletableFuture[]::new))
                .thenApply(all -> raised.stream().filter(CompletableFuture::join).count() >= majority);
    }

    /**
     * @param tokens the granting masters and their answers
     * @param token the hold's token
     * @param majority how many masters make a majority
     * @return true if a majority already stands at the token (at the end of its block, for a
     *     block of the same size on every master), so that no raise is needed
     */
    static boolean alreadyStands(Map<Master, Long> tokens, long token, int majority) {
        return tokens.values().stream().filter(answered -> answered >= token).count() >= majority;
    }
}
