package io.latchkey.multi;

import io.latchkey.LockHold;
import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the contract rows need to know about a multi-lock. Two rows cannot hold for it, by API.md,
 * and are disabled here with the reason; {@link MultiLockTest} checks what a multi-lock promises
 * in their place. Every other row runs unchanged, comparing holds by {@link #tokenOf}.
 */
final class MultiLockRows implements ExecutionCondition {

    private static final Map<String, String> CANNOT_HOLD = Map.of(
            "acquireTakesTheLockForTheCallingThreadAndReturnsItsHold",
            "a multi-lock hold's parts() are its parts' holds, not List.of(hold), and its fencingToken() throws "
                    + "UnsupportedOperationException (API.md); MultiLockTest.holdListsItsPartsInAcquisitionOrder... checks both",
            "asyncHoldsBelongToTheGivenOwnerAndAreClosedFromAnyThread",
            "same two assertions as above (parts() and fencingToken()); MultiLockTest checks async holds by parts",
            "twoLockObjectsOfOneNameShareTheHolds",
            "a multi-lock's getName() lists its parts' names, so it is not the name the row gave its parts; "
                    + "the sharing of holds that the row checks is checked by holdsAreSharedByLockObjectsOfOneNameOnOneClient");

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return context.getTestMethod()
                .map(method -> CANNOT_HOLD.get(method.getName()))
                .map(reason -> ConditionEvaluationResult.disabled("cannot hold for a multi-lock: " + reason))
                .orElse(ConditionEvaluationResult.enabled("a row of every lock kind"));
    }

    /**
     * The sum of the parts' tokens: equal for the handles of one multi-lock hold (each part's
     * token is its hold's), and greater for a later hold over the same parts (each part's token
     * is greater).
     *
     * @param hold a multi-lock hold
     * @return the number the contract rows compare
     */
    static long tokenOf(LockHold hold) {
        return hold.parts().stream().mapToLong(LockHold::fencingToken).sum();
    }
}
