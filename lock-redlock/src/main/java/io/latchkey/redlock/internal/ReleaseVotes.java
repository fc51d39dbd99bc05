package io.latchkey.redlock.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Decides a RedLock unlock as soon as the masters' answers allow, without waiting for a slow one:
 * released once a majority released, not held once too many say the owner holds nothing there,
 * failed once every master answered without either. Thread-safe.
 */
final class ReleaseVotes {

    /** Completes once the unlock is decided; fails with what {@link RedLockFailures} says when it is not released. */
    final CompletableFuture<Void> result = new CompletableFuture<>();
    private final String name;
    private final long owner;
    private final int masters;
    private final int majority;
    private int released;
    private int notHeld;
    private int failed;
    private @Nullable Throwable failure;

    /**
     * @param name the RedLock's name, for the failures
     * @param owner the owner that releases
     * @param masters how many masters there are
     * @param majority how many releases are needed
     */
    ReleaseVotes(String name, long owner, int masters, int majority) {
        this.name = name;
        this.owner = owner;
        this.masters = masters;
        this.majority = majority;
    }

    /** @param outcome null if the master released the hold, else its failure, unwrapped */
    synchronized void count(@Nullable Throwable outcome) {
        if (outcome == null) {
            released++;
        } else if (outcome instanceof IllegalMonitorStateException) {
            notHeld++;
        } else {
            failed++;
            failure = failure == null ? outcome : failure;
        }
        if (released >= majority) {
            result.complete(null);
        } else if (notHeld > masters - majority) {
            result.completeExceptionally(RedLockFailures.notHeldByMajority(name, owner, notHeld, masters));
        } else if (released + notHeld + failed == masters) {
            // Fewer than a majority released and no more than a minority held nothing: one failed at least.
            result.completeExceptionally(RedLockFailures.releaseQuorumNotReached(name, released, failed, masters,
                    majority, Objects.requireNonNull(failure, "a failed master left its failure")));
        }
    }
}
