package io.latchkey;

import static io.latchkey.SettingChecks.requireArgument;

import io.latchkey.LockConfig.ReplicaShortfall;
import java.time.Duration;
import java.util.Objects;

/**
 * Replica acknowledgement of acquisitions: after the acquire script grants, {@code WAIT}
 * asks the master for {@code replicas} acknowledgements within {@code timeout}. Redis
 * replicates asynchronously, so a hold granted just before the master fails may be missing
 * on the replica promoted in its place; a hold that enough replicas acknowledged is on each
 * of them. (Not a guarantee of durability: a replica that acknowledged may itself be lost,
 * and Sentinel may promote another; see the README.)
 *
 * <p>Set with {@link LockConfig.Builder#replicaAcknowledgement}, it applies to every acquisition
 * of a plain or fair lock: {@code WAIT} is sent on the same connection right behind the acquire
 * script, so that it adds the replicas' acknowledgement time but no round trip. Where the server
 * refuses {@code WAIT} (an ACL user without it, a managed service that renames or forbids it),
 * the refusal is logged once at WARN and acquisitions go on without acknowledgement. Where the
 * master has fewer replicas than asked, every acquisition takes the whole timeout and then meets
 * {@code onShortfall}. Renewals do not wait: a renewal only extends a hold that its grant's
 * acknowledgement already put on the replicas, and a renewal lost in a failover costs at most the
 * lease, which the watchdog renews again on the new master. RedLock masters do not wait either: a
 * RedLock survives the loss of a minority of masters by its quorum, not by replication.
 *
 * @param replicas how many replicas must acknowledge; at least 1
 * @param timeout how long to wait for them; at least a millisecond, and shorter than the
 *     command timeout
 * @param onShortfall what happens when fewer acknowledge in time
 */
public record ReplicaAcknowledgement(int replicas, Duration timeout, ReplicaShortfall onShortfall) {

    /**
     * Validates the setting.
     *
     * @param replicas how many replicas must acknowledge; at least 1
     * @param timeout how long to wait for them; at least a millisecond
     * @param onShortfall what happens when fewer acknowledge in time
     * @throws NullPointerException if {@code timeout} or {@code onShortfall} is null
     * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} below
     *     a millisecond ({@code WAIT} counts whole milliseconds, and 0 would wait for ever)
     */
    public ReplicaAcknowledgement {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(onShortfall, "onShortfall");
        requireArgument(replicas >= 1, "replicaAcknowledgement replicas must be at least 1: %s", replicas);
        requireArgument(timeout.compareTo(Duration.ofMillis(1)) >= 0,
                "replicaAcknowledgement timeout must be at least 1 ms: %s", timeout);
    }
}
