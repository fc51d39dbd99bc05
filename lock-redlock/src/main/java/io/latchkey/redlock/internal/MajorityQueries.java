package io.latchkey.redlock.internal;

import io.latchkey.spi.PlainLock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The RedLock's queries (is it locked, how many holds, how long a lease is left, force a release):
 * every master is asked, and the answer is what a majority says. Thread-safe; never blocks.
 */
final class MajorityQueries {

    private final String name;
    private final List<Master> masters;
    private final int majority;

    MajorityQueries(String name, List<Master> masters, int majority) {
        this.name = name;
        this.masters = masters;
        this.majority = majority;
    }

    /**
     * Asks every master; fails with LockException unless a majority answered, and counts a master
     * that did not answer as one that says {@code unanswered}.
     *
     * @param query what to ask each master's plain lock
     * @param unanswered what a master that did not answer counts as
     * @param <T> the type of the answer
     * @return every master's answer, in the masters' order
     */
    <T> CompletableFuture<List<T>> fromMajority(Function<PlainLock, CompletableFuture<T>> query, T unanswered) {
        List<CompletableFuture<T>> replies = new ArrayList<>(masters.size());
        for (Master master : masters) {
            replies.add(master.call(query));
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).handle((ignored, ignoredFailure) -> {
            List<T> values = new ArrayList<>(replies.size());
            Throwable failure = null;
            int answered = 0;
            for (CompletableFuture<T> reply : replies) {
                if (reply.isCompletedExceptionally()) {
                    failure = failure == null ? RedLockProtocol.failureOf(reply) : failure;
                    values.add(unanswered);
                } else {
                    values.add(reply.join());
                    answered++;
                }
            }
            if (answered < majority) {
                throw RedLockFailures.quorumNotReached(name, answered, masters.size(), majority, failure);
            }
            return values;
        });
    }

    /** @return true if at least a majority of the answers are true */
    boolean majoritySays(List<Boolean> answers) {
        return answers.stream().filter(Boolean::booleanValue).count() >= majority;
    }

    /** @return the value that at least a majority of masters reach: the majority-th largest */
    <T extends Comparable<? super T>> T majorityValue(List<T> answers) {
        List<T> sorted = new ArrayList<>(answers);
        sorted.sort(Comparator.reverseOrder());
        return sorted.get(majority - 1);
    }
}
