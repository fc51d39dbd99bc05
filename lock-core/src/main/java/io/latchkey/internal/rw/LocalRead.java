package io.latchkey.internal.rw;

import java.util.concurrent.CompletableFuture;

/**
 * An owner's read through a {@link ReadShare}, as the share knew it when asked. Immutable; its
 * query asks Redis whether the shared hold is still there and, if not, loses it ({@link ShareLoss#lost}).
 *
 * @param share the share the owner reads through
 * @param levels the owner's levels
 * @param redisToken the token of the shared hold in Redis
 */
record LocalRead(ReadShare share, int levels, long redisToken) {

    /** @return the levels once Redis confirmed that the shared hold is still there; 0 if not, and the share loses it */
    CompletableFuture<Integer> confirmed() {
        return share.redis().holdsShareHold().thenApply(held -> {
            if (!held) {
                share.losses().lost("a query found the client's shared read hold gone from Redis", false, redisToken);
                return 0;
            }
            return levels;
        });
    }
}
