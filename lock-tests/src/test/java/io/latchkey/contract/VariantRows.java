package io.latchkey.contract;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For a contract class that runs a kind again on another topology (Cluster), another server
 * version (Redis 6.2) or with parts of other kinds (a mixed multi-lock): skips the rows marked
 * {@link ClientSideRow}, which run in the kind's own contract class, and runs every row that a
 * topology or server version can change: the scripts and their keys' slots, renewal, waiting by
 * messages, expiry, fencing tokens, Redis down and too slow. The skipped rows are reported as
 * skipped, with the reason.
 *
 * <p>Measured on 2026-11-26 (a loaded machine): the marked rows took 26 to 35 s of each of the
 * seven variants' 41 to 67 s, 215 s in all.
 */
public final class VariantRows implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        boolean clientSide = context.getTestMethod()
                .map(method -> method.isAnnotationPresent(ClientSideRow.class))
                .orElse(false);
        return clientSide
                ? ConditionEvaluationResult.disabled("a client-side row, the same on every topology and server version:"
                        + " it runs in the kind's own contract class")
                : ConditionEvaluationResult.enabled("a row that the topology or server version can change");
    }
}
