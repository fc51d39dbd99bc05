package io.latchkey.internal.cohort;

import java.util.concurrent.CompletableFuture;

/**
 * An owner's hold through the cohort, as the cohort knew it when asked. Immutable; its query
 * calls Redis and, if the cohort's hold is gone, ends the cohort ({@link HoldLoss#lost}).
 *
 * @param cohort the cohort the owner holds through
 * @param levels the owner's levels
 * @param redisToken the token of the cohort's hold in Redis
 */
record LocalHold(Cohort cohort, int levels, long redisToken) {

    /**
     * @return the levels once Redis confirmed that it still has the cohort's hold; 0 if not,
     *     and the cohort learns that its hold is gone
     */
    CompletableFuture<Integer> confirmed() {
        return cohort.redis().holdsCohortHold(redisToken).thenApply(held -> {
            if (!held) {
                cohort.losses().lost("a query found it gone from Redis", false, redisToken);
                return 0;
            }
            return levels;
        });
    }
}
